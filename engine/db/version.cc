#include "engine/db/version.h"

#include <algorithm>

namespace filterlab::engine {

uint64_t Version::LevelBytes(int level) const {
  uint64_t sum = 0;
  for (const auto& f : files_[level]) sum += f->file_size;
  return sum;
}

size_t Version::TotalFiles() const {
  size_t n = 0;
  for (const auto& level : files_) n += level.size();
  return n;
}

size_t Version::FindFile(int level, const Slice& user_key, size_t begin) const {
  const FileList& files = files_[level];
  size_t lo = begin, hi = files.size();
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (files[mid]->largest_user_key().compare(user_key) < 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

FileList Version::OverlappingFiles(int level, const Slice* begin, const Slice* end) const {
  std::string lo = begin ? begin->ToString() : std::string();
  std::string hi = end ? end->ToString() : std::string();
  bool has_lo = begin != nullptr, has_hi = end != nullptr;
  FileList out;
  for (size_t i = 0; i < files_[level].size();) {
    const auto& f = files_[level][i++];
    if ((has_hi && f->smallest_user_key().compare(hi) > 0) || (has_lo && f->largest_user_key().compare(lo) < 0)) {
      continue;
    }
    if (level == 0) {
      // Widen the range and restart if this file reaches past it.
      bool widened = false;
      if (has_lo && f->smallest_user_key().compare(lo) < 0) {
        lo = f->smallest_user_key().ToString();
        widened = true;
      }
      if (has_hi && f->largest_user_key().compare(hi) > 0) {
        hi = f->largest_user_key().ToString();
        widened = true;
      }
      if (widened) {
        out.clear();
        i = 0;
        continue;
      }
    }
    out.push_back(f);
  }
  return out;
}

bool Version::IsBottommostForKey(int level, const Slice& user_key) const {
  for (int l = level + 1; l < num_levels(); ++l) {
    const FileList& files = files_[l];
    const size_t i = FindFile(l, user_key);
    if (i < files.size() && files[i]->smallest_user_key().compare(user_key) <= 0) return false;
  }
  return true;
}

void Version::SortLevels() {
  std::sort(files_[0].begin(), files_[0].end(), [](const auto& a, const auto& b) {
    if (a->largest_seq != b->largest_seq) return a->largest_seq > b->largest_seq;
    return a->number > b->number;
  });
  for (size_t l = 1; l < files_.size(); ++l) {
    std::sort(files_[l].begin(), files_[l].end(),
              [](const auto& a, const auto& b) { return CompareInternalKeys(a->smallest, b->smallest) < 0; });
  }
}

std::string Version::CheckInvariants() const {
  for (size_t l = 0; l < files_.size(); ++l) {
    for (size_t i = 0; i < files_[l].size(); ++i) {
      const auto& f = *files_[l][i];
      if (f.smallest.size() < kInternalKeyTrailerBytes || f.largest.size() < kInternalKeyTrailerBytes ||
          CompareInternalKeys(f.smallest, f.largest) > 0) {
        return "file " + std::to_string(f.number) + " at level " + std::to_string(l) + " has an invalid key range";
      }
      if (l > 0 && i > 0 && files_[l][i - 1]->largest_user_key().compare(f.smallest_user_key()) >= 0) {
        return "files " + std::to_string(files_[l][i - 1]->number) + " and " + std::to_string(f.number) +
               " overlap at level " + std::to_string(l);
      }
    }
  }
  return "";
}

}  // namespace filterlab::engine
