#include "engine/util/fault_injection_env.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

namespace filterlab::engine {
namespace {

class TrackedFile final : public WritableFile {
 public:
  TrackedFile(FaultInjectionEnv* env, std::string path, std::unique_ptr<WritableFile> base)
      : env_(env), path_(std::move(path)), base_(std::move(base)) {}
  Status Append(const Slice& data) override {
    Status s = env_->OnAppend(path_, 0);  // refuses when down or when an append failure is injected
    if (!s.ok()) return s;
    s = base_->Append(data);
    if (s.ok()) s = env_->OnAppend(path_, data.size());
    return s;
  }
  Status Sync() override {
    Status s = env_->OnSync(path_);
    if (!s.ok()) return s;
    return base_->Sync();
  }
  Status Close() override { return base_->Close(); }

 private:
  FaultInjectionEnv* const env_;
  const std::string path_;
  std::unique_ptr<WritableFile> base_;
};

}  // namespace

Status FaultInjectionEnv::Down() const { return Status::IOError("filesystem is down (simulated power loss)"); }

std::string FaultInjectionEnv::DurableContents(const std::string& path) {
  std::string contents;
  if (!ReadFileToString(base_, path, &contents).ok()) return "";
  auto it = files_.find(path);
  if (it != files_.end() && it->second.synced < contents.size()) contents.resize(it->second.synced);
  return contents;
}

Status FaultInjectionEnv::NewWritableFile(const std::string& path, std::unique_ptr<WritableFile>* out) {
  std::lock_guard<std::mutex> l(mu_);
  if (!active_) return Down();
  DirOp op{DirOp::kCreate, path, "", base_->FileExists(path), ""};
  if (op.had_old) op.old_bytes = DurableContents(path);
  std::unique_ptr<WritableFile> file;
  Status s = base_->NewWritableFile(path, &file);
  if (!s.ok()) return s;
  dir_ops_.push_back(std::move(op));
  files_[path] = FileState();
  *out = std::make_unique<TrackedFile>(this, path, std::move(file));
  return Status::OK();
}

Status FaultInjectionEnv::OnAppend(const std::string& path, size_t n) {
  std::lock_guard<std::mutex> l(mu_);
  if (n == 0) {
    if (!active_) return Down();
    if (fail_appends_ > 0) {
      --fail_appends_;
      return Status::IOError(path + ": write failed (injected error)");
    }
    return Status::OK();
  }
  files_[path].written += n;
  appended_ += n;
  return Status::OK();
}

Status FaultInjectionEnv::OnSync(const std::string& path) {
  int delay = 0;
  {
    std::lock_guard<std::mutex> l(mu_);
    delay = sync_delay_micros_;
  }
  if (delay > 0) std::this_thread::sleep_for(std::chrono::microseconds(delay));
  std::lock_guard<std::mutex> l(mu_);
  if (!active_) return Down();
  if (fail_syncs_ > 0) {
    --fail_syncs_;
    return Status::IOError(path + ": fdatasync failed (injected error)");
  }
  FileState& f = files_[path];
  synced_ += f.written - f.synced;
  f.synced = f.written;
  return Status::OK();
}

Status FaultInjectionEnv::RemoveFile(const std::string& path) {
  std::lock_guard<std::mutex> l(mu_);
  if (!active_) return Down();
  DirOp op{DirOp::kRemove, path, "", true, DurableContents(path)};
  Status s = base_->RemoveFile(path);
  if (!s.ok()) return s;
  dir_ops_.push_back(std::move(op));
  files_.erase(path);
  return Status::OK();
}

Status FaultInjectionEnv::RenameFile(const std::string& from, const std::string& to) {
  std::lock_guard<std::mutex> l(mu_);
  if (!active_) return Down();
  DirOp op{DirOp::kRename, to, from, base_->FileExists(to), ""};
  if (op.had_old) op.old_bytes = DurableContents(to);
  Status s = base_->RenameFile(from, to);
  if (!s.ok()) return s;
  dir_ops_.push_back(std::move(op));
  auto it = files_.find(from);
  if (it != files_.end()) {
    files_[to] = it->second;
    files_.erase(from);
  } else {
    files_.erase(to);  // an untracked file: all of it counts as synced
  }
  return Status::OK();
}

// Directory creation is treated as durable at once (only the DB's lost/ is created).
Status FaultInjectionEnv::CreateDir(const std::string& path) {
  std::lock_guard<std::mutex> l(mu_);
  if (!active_) return Down();
  return base_->CreateDir(path);
}

Status FaultInjectionEnv::SyncDir(const std::string& dir) {
  std::lock_guard<std::mutex> l(mu_);
  if (!active_) return Down();
  Status s = base_->SyncDir(dir);
  if (!s.ok()) return s;
  std::vector<DirOp> kept;
  for (auto& op : dir_ops_) {
    if (DirName(op.path) != dir) kept.push_back(std::move(op));
  }
  dir_ops_ = std::move(kept);
  return Status::OK();
}

void FaultInjectionEnv::SetFilesystemActive(bool active) {
  std::lock_guard<std::mutex> l(mu_);
  active_ = active;
}

void FaultInjectionEnv::FailNextSyncs(int n) {
  std::lock_guard<std::mutex> l(mu_);
  fail_syncs_ = n;
}

void FaultInjectionEnv::SetSyncDelayMicros(int micros) {
  std::lock_guard<std::mutex> l(mu_);
  sync_delay_micros_ = micros;
}

void FaultInjectionEnv::FailNextAppends(int n) {
  std::lock_guard<std::mutex> l(mu_);
  fail_appends_ = n;
}

Status FaultInjectionEnv::PowerLoss(Random* rnd, bool drop_unsynced_dir_entries) {
  std::lock_guard<std::mutex> l(mu_);
  for (const auto& [path, f] : files_) {
    uint64_t size = 0;
    if (!base_->GetFileSize(path, &size).ok()) continue;
    uint64_t unsynced = size > f.synced ? size - f.synced : 0;
    const uint64_t keep =
        unsynced == 0 ? 0 : rnd->Uniform(static_cast<uint32_t>(std::min<uint64_t>(unsynced, 1u << 30)) + 1);
    if (keep < unsynced) {
      if (::truncate(path.c_str(), static_cast<off_t>(f.synced + keep)) != 0) {
        return Status::IOError(path + ": truncate failed: " + std::strerror(errno));
      }
      dropped_ += unsynced - keep;
    }
  }
  if (drop_unsynced_dir_entries) {
    for (auto it = dir_ops_.rbegin(); it != dir_ops_.rend(); ++it) {
      const DirOp& op = *it;
      Status s;
      switch (op.kind) {
        case DirOp::kCreate:
          if (base_->FileExists(op.path)) s = base_->RemoveFile(op.path);
          if (s.ok() && op.had_old) s = WriteStringToFile(base_, op.path, op.old_bytes, true);
          break;
        case DirOp::kRename:
          s = base_->RenameFile(op.path, op.from);
          if (s.ok() && op.had_old) s = WriteStringToFile(base_, op.path, op.old_bytes, true);
          break;
        case DirOp::kRemove: s = WriteStringToFile(base_, op.path, op.old_bytes, true); break;
      }
      if (!s.ok()) return s;
    }
  }
  dir_ops_.clear();
  files_.clear();
  return Status::OK();
}

uint64_t FaultInjectionEnv::bytes_appended() const {
  std::lock_guard<std::mutex> l(mu_);
  return appended_;
}
uint64_t FaultInjectionEnv::bytes_synced() const {
  std::lock_guard<std::mutex> l(mu_);
  return synced_;
}
uint64_t FaultInjectionEnv::unsynced_bytes_dropped() const {
  std::lock_guard<std::mutex> l(mu_);
  return dropped_;
}

}  // namespace filterlab::engine
