#include "engine/db/write_batch.h"

#include <vector>

#include "engine/memtable/memtable.h"
#include "engine/util/coding.h"

namespace filterlab::engine {

WriteBatch::WriteBatch() { Clear(); }

void WriteBatch::Clear() { rep_.assign(WriteBatchInternal::kHeaderSize, '\0'); }

uint32_t WriteBatch::Count() const { return DecodeFixed32(rep_.data() + 8); }

static void SetCount(std::string* rep, uint32_t n) { EncodeFixed32(rep->data() + 8, n); }

void WriteBatch::Put(const Slice& key, const Slice& value) {
  SetCount(&rep_, Count() + 1);
  rep_.push_back(static_cast<char>(kTypeValue));
  PutLengthPrefixedSlice(&rep_, key);
  PutLengthPrefixedSlice(&rep_, value);
}

void WriteBatch::Delete(const Slice& key) {
  SetCount(&rep_, Count() + 1);
  rep_.push_back(static_cast<char>(kTypeDeletion));
  PutLengthPrefixedSlice(&rep_, key);
}

Status WriteBatch::Iterate(Handler* handler) const {
  if (rep_.size() < WriteBatchInternal::kHeaderSize) {
    return Status::Corruption("write batch of " + std::to_string(rep_.size()) + " bytes is shorter than its " +
                              std::to_string(WriteBatchInternal::kHeaderSize) + "-byte header");
  }
  Slice input(rep_);
  input.remove_prefix(WriteBatchInternal::kHeaderSize);
  uint32_t found = 0;
  while (!input.empty()) {
    const uint8_t tag = static_cast<uint8_t>(input[0]);
    input.remove_prefix(1);
    Slice key, value;
    if (tag == kTypeValue) {
      if (!GetLengthPrefixedSlice(&input, &key) || !GetLengthPrefixedSlice(&input, &value)) {
        return Status::Corruption("write batch record " + std::to_string(found) + ": truncated put");
      }
      handler->Put(key, value);
    } else if (tag == kTypeDeletion) {
      if (!GetLengthPrefixedSlice(&input, &key)) {
        return Status::Corruption("write batch record " + std::to_string(found) + ": truncated delete");
      }
      handler->Delete(key);
    } else {
      return Status::Corruption("write batch record " + std::to_string(found) + ": unknown type " +
                                std::to_string(tag) + " (allowed: 0 delete, 1 put)");
    }
    ++found;
  }
  if (found != Count()) {
    return Status::Corruption("write batch header counts " + std::to_string(Count()) + " records but it holds " +
                              std::to_string(found));
  }
  return Status::OK();
}

SequenceNumber WriteBatchInternal::Sequence(const WriteBatch& b) { return DecodeFixed64(b.rep_.data()); }

void WriteBatchInternal::SetSequence(WriteBatch* b, SequenceNumber seq) { EncodeFixed64(b->rep_.data(), seq); }

Status WriteBatchInternal::SetContents(WriteBatch* b, const Slice& contents) {
  if (contents.size() < kHeaderSize) {
    return Status::Corruption("write batch of " + std::to_string(contents.size()) + " bytes is shorter than its " +
                              std::to_string(kHeaderSize) + "-byte header");
  }
  b->rep_.assign(contents.data(), contents.size());
  return Status::OK();
}

void WriteBatchInternal::Append(WriteBatch* dst, const WriteBatch& src) {
  SetCount(&dst->rep_, dst->Count() + src.Count());
  dst->rep_.append(src.rep_.data() + kHeaderSize, src.rep_.size() - kHeaderSize);
}

namespace {

class CheckOnly final : public WriteBatch::Handler {
 public:
  void Put(const Slice&, const Slice&) override {}
  void Delete(const Slice&) override {}
};

class MemTableInserter final : public WriteBatch::Handler {
 public:
  MemTableInserter(SequenceNumber seq, MemTable* mem) : seq_(seq), mem_(mem) {}
  void Put(const Slice& key, const Slice& value) override { mem_->Add(seq_++, kTypeValue, key, value); }
  void Delete(const Slice& key) override { mem_->Add(seq_++, kTypeDeletion, key, Slice()); }

 private:
  SequenceNumber seq_;
  MemTable* mem_;
};

}  // namespace

Status WriteBatchInternal::InsertInto(const WriteBatch& b, MemTable* mem) {
  CheckOnly check;
  Status s = b.Iterate(&check);  // all or nothing
  if (!s.ok()) return s;
  MemTableInserter inserter(Sequence(b), mem);
  return b.Iterate(&inserter);
}

}  // namespace filterlab::engine
