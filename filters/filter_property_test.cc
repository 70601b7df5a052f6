// Generic property tests over every registered filter variant. The cases are
// every example spec of every variant (AllExampleSpecs()) plus the same spec
// with the other hash width wherever the variant accepts it (acceptance is
// detected by NewFilterPolicy succeeding), so the suite grows by itself as
// variants register. What every filter must do, whatever its layout:
//   - never a false negative (0, 1, 7 and 10^5 keys; 10^7 keys for a subset,
//     see FilterPropertyLarge);
//   - a measured FP rate within a stated binomial bound of its policy's
//     ModelFpRate (the bound is explained in filters/fp_tolerance.h);
//   - MayContainBatch == MayContain on any batch;
//   - Serialize -> OpenFilter answers identically, re-serializes to the same
//     bytes and describes itself the same way; builds are deterministic;
//   - bad specs and damaged bytes give a Status naming the problem, never a
//     crash (the suite also runs under ASan + UBSan: `./filterlab test --sanitize`).
// All randomness comes from fixed SplitMix64 seeds, so every count is the same
// on every run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/aligned_array.h"
#include "common/test_scale.h"
#include "filters/filter.h"
#include "filters/filter_spec.h"
#include "filters/filter_test_util.h"
#include "filters/fp_tolerance.h"
#include "filters/registry.h"
#include "filters/trailer.h"
#include "hashing/remix.h"

namespace filterlab {
namespace {

// ---------------------------------------------------------------------------
// The cases

std::string OtherWidth(HashWidth w) { return w == HashWidth::k64 ? "32" : "64"; }

// Every example spec (canonicalised by its policy) and its other-hash-width
// twin where the variant takes one. An example that does not even parse is
// kept as written, so that its case fails loudly instead of vanishing.
std::vector<std::string> ComputePropertySpecs() {
  std::vector<std::string> out;
  auto add = [&out](const std::string& s) {
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  };
  std::vector<std::string> examples = AllExampleSpecs();
  // A variant without examples (e.g. an alias of a worm sub-variant) is
  // covered at its defaults; an alias lands on the same canonical spec as
  // what it names and is deduplicated below.
  for (const FilterVariant* v : RegisteredFilterVariants()) {
    if (v->examples_at_10_bpk.empty()) examples.push_back(std::string(v->name) + ":bpk=10");
  }
  for (const std::string& example : examples) {
    std::unique_ptr<FilterPolicy> policy;
    if (!NewFilterPolicy(example, &policy).ok()) {
      add(example);
      continue;
    }
    add(policy->spec());
    FilterSpec parsed;
    if (!FilterSpec::Parse(policy->spec(), &parsed).ok()) continue;
    std::unique_ptr<FilterPolicy> twin;
    if (NewFilterPolicy(parsed.WithParam("hash", OtherWidth(policy->hash_width())), &twin).ok() &&
        twin->hash_width() != policy->hash_width()) {
      add(twin->spec());
    }
  }
  return out;
}

// GoogleTest evaluates a suite's generator once per TEST_P, and every ctest
// case is a process of its own: compute the list once per process.
const std::vector<std::string>& PropertySpecs() {
  static const std::vector<std::string> specs = ComputePropertySpecs();
  return specs;
}

// The 10^7-key cases: each variant's first example and its other-width twin.
// 10^7 keys means an 80 MB hash array, a ~12 MB filter and ~10^7 probes per
// check: about a second per case in Release and a few under ASan, so running
// it for every worm sub-variant too would take the suite past its budget.
// The first example of each variant exercises that variant's sizing and
// indexing at a size where 32-bit offsets and the matches of equal 32-bit
// hashes (~n/2^32) matter; the sub-variants share those code paths with it.
std::vector<std::string> LargeSpecs() {
  std::vector<std::string> out;
  for (const FilterVariant* v : RegisteredFilterVariants()) {
    if (v->examples_at_10_bpk.empty()) continue;
    std::unique_ptr<FilterPolicy> policy;
    if (!NewFilterPolicy(v->examples_at_10_bpk.front(), &policy).ok()) continue;  // FilterProperty reports it
    out.push_back(policy->spec());
    FilterSpec parsed;
    std::unique_ptr<FilterPolicy> twin;
    if (FilterSpec::Parse(policy->spec(), &parsed).ok() &&
        NewFilterPolicy(parsed.WithParam("hash", OtherWidth(policy->hash_width())), &twin).ok() &&
        twin->hash_width() != policy->hash_width()) {
      out.push_back(twin->spec());
    }
  }
  return out;
}

std::string SpecTestName(const testing::TestParamInfo<std::string>& info) {
  std::string name;
  for (char c : info.param) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
      name += c;
    } else if (c == '.') {
      name += 'p';  // bpk=10.3 -> bpk_10p3
    } else {
      name += '_';
    }
  }
  return name.empty() ? "empty" : name;
}

// ---------------------------------------------------------------------------
// Helpers

using testing_util::TestHashes;

// Bytes in a heap block of exactly their size, so that ASan flags any read
// past the end (a std::string has spare capacity and a terminator).
class ExactBuffer {
 public:
  explicit ExactBuffer(std::string_view bytes) : size_(bytes.size()), data_(new char[bytes.size()]) {
    if (size_ > 0) std::memcpy(data_.get(), bytes.data(), size_);
  }
  Slice slice() const { return Slice(data_.get(), size_); }

 private:
  size_t size_;
  std::unique_ptr<char[]> data_;
};

std::vector<bool> Answers(const Filter& f, const std::vector<uint64_t>& queries) {
  std::vector<bool> out(queries.size());
  for (size_t i = 0; i < queries.size(); ++i) out[i] = f.MayContain(queries[i]);
  return out;
}

std::vector<bool> BatchAnswers(const Filter& f, const std::vector<uint64_t>& queries, size_t batch) {
  std::vector<bool> out(queries.size());
  auto buf = std::make_unique<bool[]>(batch);
  for (size_t i = 0; i < queries.size(); i += batch) {
    const size_t n = std::min(batch, queries.size() - i);
    f.MayContainBatch(queries.data() + i, n, buf.get());
    for (size_t j = 0; j < n; ++j) out[i + j] = buf[j];
  }
  return out;
}

// Index of the first hash the filter says it does not contain, or -1.
long long FirstFalseNegative(const Filter& f, const std::vector<uint64_t>& added, bool single_too) {
  constexpr size_t kBatch = 1024;
  bool buf[kBatch];
  for (size_t i = 0; i < added.size(); i += kBatch) {
    const size_t n = std::min(kBatch, added.size() - i);
    f.MayContainBatch(added.data() + i, n, buf);
    for (size_t j = 0; j < n; ++j) {
      if (!buf[j]) return static_cast<long long>(i + j);
    }
  }
  if (single_too) {
    for (size_t i = 0; i < added.size(); ++i) {
      if (!f.MayContain(added[i])) return static_cast<long long>(i);
    }
  }
  return -1;
}

// Queries half of which were added (every other one), half fresh.
std::vector<uint64_t> MixedQueries(const std::vector<uint64_t>& added, uint64_t seed, size_t n) {
  std::vector<uint64_t> out = TestHashes(seed, n);
  for (size_t i = 0; i < n && !added.empty(); i += 2) out[i] = added[(i / 2) % added.size()];
  return out;
}

// Queries a filter opened from untrusted bytes through every read path: under
// ASan this is where an opener that trusted a bad length would read out of
// bounds. A filter opened from `size` bytes cannot hold more data than that.
void ExerciseOpenedFilter(const Filter& f, size_t size, const std::string& what) {
  EXPECT_LE(f.DataBytes(), size) << what << ": opened filter claims more data than its bytes";
  const std::vector<uint64_t> probes = TestHashes(0xE8E6C1, 256);
  EXPECT_EQ(Answers(f, probes), BatchAnswers(f, probes, 37)) << what;
  std::string again;
  f.Serialize(&again);
  (void)f.Describe();
}

// ---------------------------------------------------------------------------
// FP tolerance: the shared rule of filters/fp_tolerance.h (4 binomial sigma
// plus an allowance by kind of model: exact 5%, an approximation its stated
// error + 5%, empirical 15%, lower bound [model - 4 sigma, ...) with a sanity
// cap of 2 model at the 10 bits/key these tests run; the reasons are stated
// there).

struct FpCheck {
  uint64_t positives;
  uint64_t queries;
  double measured;
  double model;
  double sigma;
  FpModelClaim kind;
};

FpCheck MeasureFp(const Filter& f, const FilterPolicy& policy, size_t keys, uint64_t query_seed, uint64_t queries) {
  constexpr size_t kChunk = 4096;
  std::vector<uint64_t> chunk(kChunk);
  bool buf[kChunk];
  SplitMix64 rng(query_seed);
  uint64_t positives = 0;
  for (uint64_t done = 0; done < queries; done += kChunk) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kChunk, queries - done));
    for (size_t i = 0; i < n; ++i) chunk[i] = rng.Next();
    f.MayContainBatch(chunk.data(), n, buf);
    for (size_t i = 0; i < n; ++i) positives += buf[i];
  }
  const double model = policy.ModelFpRate(keys);
  const double sigma = std::sqrt(model * (1 - model) / static_cast<double>(queries));
  return FpCheck{positives, queries, static_cast<double>(positives) / static_cast<double>(queries),
                 model,     sigma,   FpModelClaimOf(policy)};
}

void ExpectFpWithinBound(const FpCheck& c, const std::string& spec, size_t keys) {
  ASSERT_TRUE(std::isfinite(c.model) && c.model > 0 && c.model < 1)
      << spec << ": ModelFpRate(" << keys << ") = " << c.model << " is not a probability in (0, 1)";
  const FpAllowedRange allowed = AllowedFpRange(c.model, c.queries, c.kind);
  const double low = allowed.low, high = allowed.high;
  const char* rule = allowed.rule;
  EXPECT_TRUE(c.measured >= low && c.measured <= high)
      << spec << " with " << keys << " keys: measured FP " << c.measured << " (" << c.positives << " of " << c.queries
      << " outside queries), model " << c.model << " (measured/model = " << c.measured / c.model << "), allowed ["
      << low << ", " << high << "] (" << rule << ")";
  if (c.kind.kind == FpModelKind::kLowerBound) {
    EXPECT_LE(c.measured, LowerBoundSanityCap(c.model))
        << spec << " with " << keys << " keys: measured FP " << c.measured << " is more than twice its lower bound "
        << c.model << " (fp_tolerance.h: a new defect, beyond the probe sequence's known excess)";
  }
}

// ---------------------------------------------------------------------------
// Per-spec properties

class FilterProperty : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    Status s = NewFilterPolicy(GetParam(), &policy_);
    ASSERT_TRUE(s.ok()) << "example spec '" << GetParam() << "' does not build a policy: " << s.ToString();
  }

  std::unique_ptr<Filter> Build(const std::vector<uint64_t>& hashes) const {
    std::unique_ptr<Filter> f;
    Status s = policy_->Build(hashes.data(), hashes.size(), &f);
    EXPECT_TRUE(s.ok()) << GetParam() << ": Build of " << hashes.size() << " hashes: " << s.ToString();
    EXPECT_TRUE(!s.ok() || f != nullptr) << GetParam() << ": Build returned OK but no filter";
    return f;
  }

  std::unique_ptr<FilterPolicy> policy_;
};

TEST_P(FilterProperty, NoFalseNegatives) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{100'000}}) {
    SCOPED_TRACE(std::to_string(n) + " keys");
    const std::vector<uint64_t> added = TestHashes(0xADD0000 + n, n);
    auto f = Build(added);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(FirstFalseNegative(*f, added, /*single_too=*/true), -1) << GetParam();
  }
}

TEST_P(FilterProperty, FpRateWithinBinomialBoundOfModel) {
  constexpr size_t kKeys = 100'000;
  constexpr uint64_t kQueries = SanitizerScaled(2'000'000);  // the bound widens with fewer queries
  auto f = Build(TestHashes(0xF00D, kKeys));
  ASSERT_NE(f, nullptr);
  ExpectFpWithinBound(MeasureFp(*f, *policy_, kKeys, 0xBEEF, kQueries), GetParam(), kKeys);
}

TEST_P(FilterProperty, BatchAgreesWithSingle) {
  const std::vector<uint64_t> added = TestHashes(0xBA7C4, 10'000);
  auto f = Build(added);
  ASSERT_NE(f, nullptr);
  const std::vector<uint64_t> queries = MixedQueries(added, 0x9E7, 20'011);
  const std::vector<bool> single = Answers(*f, queries);
  // Batch sizes around the prefetch pipeline's edges and one whole batch.
  for (size_t batch : {size_t{1}, size_t{2}, size_t{3}, size_t{7}, size_t{8}, size_t{16}, size_t{31}, size_t{64},
                       size_t{100}, size_t{257}, size_t{1000}, queries.size()}) {
    EXPECT_EQ(BatchAnswers(*f, queries, batch), single) << GetParam() << ": batch size " << batch;
  }
  // An empty batch must be harmless.
  f->MayContainBatch(queries.data(), 0, nullptr);
}

// Filter::View answers exactly as MayContain, the variant's own view and the
// default (object-calling) one, on built and opened filters (an opened filter
// views bytes at an arbitrary alignment), one query at a time and in batches,
// and Prefetch through it is harmless. Every variant but those listed in
// kDefaultViewVariants has a view of its own (other ops than the default's),
// so the simulator's queries skip the object's cache miss for them; a listed
// variant that gains one fails here too, so the list stays true.
constexpr std::string_view kDefaultViewVariants[] = {
    "dynamic_old",  // the pre-2019 memtable filter, timed through its object (sim dynamic): no view
};
TEST_P(FilterProperty, ViewAgreesWithMayContain) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{10'000}}) {
    SCOPED_TRACE(std::to_string(n) + " keys");
    const std::vector<uint64_t> added = TestHashes(0x71E3 + n, n);
    auto f = Build(added);
    ASSERT_NE(f, nullptr);
    const std::string bytes = f->Serialize();
    ExactBuffer buffer(bytes);
    std::unique_ptr<Filter> opened;
    Status s = OpenFilter(buffer.slice(), &opened);
    ASSERT_TRUE(s.ok()) << GetParam() << ": " << s.ToString();
    const std::vector<uint64_t> queries = MixedQueries(added, 0x71E4 + n, SanitizerScaled(20'000));
    for (const Filter* filter : {f.get(), opened.get()}) {
      const bool own_view = filter->View().ops != filter->Filter::View().ops;
      const bool listed = std::find(std::begin(kDefaultViewVariants), std::end(kDefaultViewVariants),
                                    policy_->variant()) != std::end(kDefaultViewVariants);
      // (An empty native filter opens as the registry's AlwaysFalseFilter,
      // not the variant's, so no keys is not asked.)
      if (n > 0) {
        EXPECT_EQ(own_view, !listed) << GetParam() << (filter == f.get() ? " built" : " opened")
                                     << (own_view ? ": has a view of its own but is listed in kDefaultViewVariants"
                                                  : ": View() is the default (object-calling) view");
      }
      const std::vector<bool> want = Answers(*filter, queries);
      for (const FilterView& view : {filter->View(), filter->Filter::View()}) {
        std::vector<bool> got(queries.size());
        for (size_t i = 0; i < queries.size(); ++i) {
          view.Prefetch(queries[i]);
          got[i] = view.MayContain(queries[i]);
        }
        EXPECT_EQ(got, want) << GetParam() << (filter == f.get() ? " built" : " opened")
                             << (view.data == filter ? ", default view" : ", variant's view");
        // The view's batch path, at sizes below, at and above its chunking.
        for (size_t batch : {size_t{1}, size_t{16}, size_t{64}, size_t{100}}) {
          std::vector<bool> batched;
          bool results[100];
          for (size_t start = 0; start < queries.size(); start += batch) {
            const size_t m = std::min(batch, queries.size() - start);
            view.MayContainBatch(queries.data() + start, m, results);
            batched.insert(batched.end(), results, results + m);
          }
          EXPECT_EQ(batched, want) << GetParam() << (filter == f.get() ? " built" : " opened")
                                   << (view.data == filter ? ", default view" : ", variant's view") << ", batch "
                                   << batch;
        }
        view.MayContainBatch(queries.data(), 0, nullptr);  // an empty batch is harmless
      }
    }
  }
}

// OpenFilter's contract (filter.h): every variant reads 64-byte aligned bytes
// in place, so the memory a caller puts them in (the simulator's huge-page
// arenas) is the memory its queries read, for every variant alike. Checked
// through the view's data, which for all but the default-view variants is
// the filter's bits; and the opened filter is read-only.
TEST_P(FilterProperty, OpenedFilterReadsLineAlignedBytesInPlace) {
  const std::vector<uint64_t> added = TestHashes(0x1A7E, 10'000);
  auto f = Build(added);
  ASSERT_NE(f, nullptr);
  const std::string bytes = f->Serialize();
  CacheAlignedArray<char> buffer(bytes.size());
  std::memcpy(buffer.data(), bytes.data(), bytes.size());
  std::unique_ptr<Filter> opened;
  Status s = OpenFilter(Slice(buffer.data(), bytes.size()), &opened);
  ASSERT_TRUE(s.ok()) << GetParam() << ": " << s.ToString();
  EXPECT_FALSE(opened->SupportsAdd()) << GetParam();
  if (std::find(std::begin(kDefaultViewVariants), std::end(kDefaultViewVariants), policy_->variant()) !=
      std::end(kDefaultViewVariants)) {
    return;  // its view's data is the object
  }
  const auto* data = static_cast<const char*>(opened->View().data);
  EXPECT_TRUE(data >= buffer.data() && data < buffer.data() + bytes.size())
      << GetParam() << ": the opened filter reads a copy, not the bytes it was opened from";
}

TEST_P(FilterProperty, SerializeOpenRoundTrip) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{10'000}}) {
    SCOPED_TRACE(std::to_string(n) + " keys");
    const std::vector<uint64_t> added = TestHashes(0x5E41 + n, n);
    auto f = Build(added);
    ASSERT_NE(f, nullptr);
    const std::string bytes = f->Serialize();
    // Serialize appends.
    std::string prefixed = "prefix";
    f->Serialize(&prefixed);
    EXPECT_EQ(prefixed, "prefix" + bytes);

    ExactBuffer buffer(bytes);
    std::unique_ptr<Filter> opened;
    Status s = OpenFilter(buffer.slice(), &opened);
    ASSERT_TRUE(s.ok()) << GetParam() << ": OpenFilter of its own " << bytes.size() << " bytes: " << s.ToString();
    ASSERT_NE(opened, nullptr);
    const std::vector<uint64_t> queries = MixedQueries(added, 0x0E7 + n, 20'000);
    EXPECT_EQ(Answers(*opened, queries), Answers(*f, queries)) << GetParam();
    EXPECT_EQ(BatchAnswers(*opened, queries, 64), Answers(*f, queries)) << GetParam();
    EXPECT_EQ(FirstFalseNegative(*opened, added, true), -1) << GetParam();

    // The one documented exception: RocksDB's formats write a 0-key filter as
    // at most 5 bytes, which every reader opens as "always false".
    const bool empty_form = bytes.size() <= 5 && !HasFilterlabTrailer(Slice(bytes.data(), bytes.size()));
    if (empty_form) {
      EXPECT_EQ(n, 0u) << GetParam() << ": a filter of " << n << " keys serialized to only " << bytes.size()
                       << " bytes";
      continue;
    }
    EXPECT_EQ(opened->Serialize(), bytes) << GetParam() << ": re-serialized bytes differ";
    EXPECT_EQ(opened->Describe(), f->Describe()) << GetParam();
    EXPECT_EQ(opened->DataBytes(), f->DataBytes()) << GetParam();
    EXPECT_EQ(opened->hash_width(), f->hash_width()) << GetParam();
  }
}

// The keys the variant declares it accepts (what the runner appends sweep
// parameters by) are the keys its parser really takes: every key of the
// canonical spec is among them, and the canonical spec re-parses to the same
// policy with the same keys.
TEST_P(FilterProperty, AcceptedKeysAreTheParsersKeys) {
  std::unique_ptr<FilterPolicy> p;
  std::vector<std::string> keys;
  ASSERT_TRUE(NewFilterPolicy(policy_->spec(), &p, &keys).ok()) << policy_->spec();
  ASSERT_FALSE(keys.empty()) << GetParam();
  FilterSpec canonical;
  ASSERT_TRUE(FilterSpec::Parse(policy_->spec(), &canonical).ok());
  for (const auto& [key, value] : canonical.Params()) {
    EXPECT_NE(std::find(keys.begin(), keys.end(), key), keys.end())
        << GetParam() << ": canonical key '" << key << "' is not among the accepted keys";
  }
  EXPECT_EQ(p->spec(), policy_->spec());
  EXPECT_EQ(keys.size(), std::set<std::string>(keys.begin(), keys.end()).size()) << GetParam();
}

TEST_P(FilterProperty, DeterministicAndDescribedStably) {
  const std::vector<uint64_t> added = TestHashes(0xDE7, 100'000);
  auto a = Build(added);
  auto b = Build(added);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(a->Serialize(), b->Serialize()) << GetParam() << ": two builds from the same hashes differ";
  const std::string describe = a->Describe();
  EXPECT_EQ(a->Describe(), describe);
  EXPECT_EQ(b->Describe(), describe);
  EXPECT_EQ(a->hash_width(), policy_->hash_width());

  // Describe() is a layout spec naming the policy's variant.
  FilterSpec layout;
  Status s = FilterSpec::Parse(describe, &layout);
  EXPECT_TRUE(s.ok()) << GetParam() << ": Describe() '" << describe << "' does not parse: " << s.ToString();
  EXPECT_EQ(layout.variant(), policy_->variant()) << "Describe() = " << describe;

  // spec() is canonical: it parses back to a policy with the same spec that
  // builds the same bytes.
  std::unique_ptr<FilterPolicy> again;
  s = NewFilterPolicy(policy_->spec(), &again);
  ASSERT_TRUE(s.ok()) << "spec() '" << policy_->spec() << "' does not parse back: " << s.ToString();
  EXPECT_EQ(again->spec(), policy_->spec());
  EXPECT_EQ(again->variant(), policy_->variant());
  EXPECT_EQ(again->hash_width(), policy_->hash_width());
  EXPECT_EQ(again->num_probes(), policy_->num_probes());
  EXPECT_EQ(again->bits_per_key(), policy_->bits_per_key());
  std::unique_ptr<Filter> c;
  ASSERT_TRUE(again->Build(added.data(), added.size(), &c).ok());
  EXPECT_EQ(c->Serialize(), a->Serialize()) << "policy re-made from spec() builds different bytes";

  // The memory actually used is near what was asked for: rounding to lines,
  // words or whole bits per key moves it a little, never by 10%.
  const double actual_bpk = 8.0 * static_cast<double>(a->DataBytes()) / static_cast<double>(added.size());
  EXPECT_GE(actual_bpk, 0.9 * policy_->bits_per_key() - 0.5) << GetParam();
  EXPECT_LE(actual_bpk, 1.1 * policy_->bits_per_key() + 0.5) << GetParam();
  // A probe count is there exactly when the registration says the layout has one.
  const bool has_probes = FindFilterVariant(policy_->variant())->has_probes;
  EXPECT_EQ(policy_->num_probes().has_value(), has_probes) << GetParam();
  if (has_probes) {
    EXPECT_GE(*policy_->num_probes(), 1) << GetParam();
  }
}

TEST_P(FilterProperty, KeysGoThroughPolicyHash) {
  std::vector<std::string> keys;
  for (int i = 0; i < 2000; ++i) keys.push_back("key" + std::to_string(i * 7919));
  std::vector<Slice> slices(keys.begin(), keys.end());
  std::unique_ptr<Filter> f;
  Status s = BuildFilterFromKeys(*policy_, slices.data(), slices.size(), &f);
  ASSERT_TRUE(s.ok()) << s.ToString();
  for (const auto& k : slices) {
    const uint64_t h = policy_->HashKey(k);
    EXPECT_EQ(h, policy_->HashKey(k)) << "HashKey is not deterministic";
    if (policy_->hash_width() == HashWidth::k32) {
      EXPECT_LE(h, uint64_t{0xffffffff}) << GetParam() << ": a 32-bit policy's HashKey must be zero-extended";
    }
    ASSERT_TRUE(f->MayContain(h)) << GetParam() << ": key '" << k.ToString() << "' not found";
  }
}

// HashKeys is the batch form of HashKey (a variant may vectorise it across keys, as legacy's does):
// the same hash for every key, whatever the batch's length (past and short of a 16-key register)
// and the keys' lengths and bytes.
TEST_P(FilterProperty, HashKeysAgreesWithHashKey) {
  SplitMix64 rng(0x4A5);
  std::vector<std::string> keys;
  for (int i = 0; i < 300; ++i) {
    std::string key(static_cast<size_t>(rng.Next() % 41), '\0');
    for (char& c : key) c = static_cast<char>(rng.Next());
    keys.push_back(std::move(key));
  }
  const std::vector<Slice> slices(keys.begin(), keys.end());
  for (const size_t n : {size_t{0}, size_t{1}, size_t{15}, size_t{16}, size_t{17}, slices.size()}) {
    std::vector<uint64_t> batch(n + 1, 0xFEEDFACE);
    policy_->HashKeys(slices.data(), n, batch.data());
    for (size_t i = 0; i < n; ++i) {
      ASSERT_EQ(batch[i], policy_->HashKey(slices[i]))
          << GetParam() << ": HashKeys over " << n << " keys differs from HashKey at key " << i << " (length "
          << slices[i].size() << ")";
    }
    EXPECT_EQ(batch[n], uint64_t{0xFEEDFACE}) << GetParam() << ": HashKeys over " << n << " keys wrote past them";
  }
}

TEST_P(FilterProperty, NarrowHashUsesOnlyLow32Bits) {
  if (policy_->hash_width() != HashWidth::k32) GTEST_SKIP() << "64-bit variant";
  const std::vector<uint64_t> added = TestHashes(0x32B, 10'000);
  auto f = Build(added);
  ASSERT_NE(f, nullptr);
  const std::vector<uint64_t> queries = MixedQueries(added, 0x32C, 20'000);
  std::vector<uint64_t> flipped = queries;
  SplitMix64 rng(0x32D);
  for (auto& q : flipped) q ^= rng.Next() << 32;
  EXPECT_EQ(Answers(*f, flipped), Answers(*f, queries)) << GetParam() << ": the upper 32 bits changed an answer";
}

TEST_P(FilterProperty, DynamicAddsLoseNothing) {
  const std::vector<uint64_t> added = TestHashes(0xD1, 50'000);
  std::unique_ptr<Filter> f;
  Status s = policy_->NewDynamic(added.size(), &f);
  if (!policy_->is_dynamic()) {
    EXPECT_FALSE(s.ok()) << GetParam() << ": a static policy made a dynamic filter";
    EXPECT_FALSE(s.message().empty());
    auto built = Build(added);
    ASSERT_NE(built, nullptr);
    EXPECT_FALSE(built->SupportsAdd());
    return;
  }
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_TRUE(f->SupportsAdd());
  for (size_t i = 0; i < added.size(); ++i) {
    if (i % 2 == 0) {
      f->Add(added[i]);
    } else {
      f->AddConcurrently(added[i]);
    }
  }
  EXPECT_EQ(FirstFalseNegative(*f, added, true), -1) << GetParam();
}

// Each parameter every variant must check, set to values no variant allows.
TEST_P(FilterProperty, RejectsImpossibleParameters) {
  FilterSpec spec;
  ASSERT_TRUE(FilterSpec::Parse(policy_->spec(), &spec).ok());
  const std::vector<std::pair<std::string, std::vector<std::string>>> bad = {
      {"bpk", {"0", "-1", "-0.5", "nan", "NaN", "inf", "-inf", "1e9", "1e300", "ten", "10x"}},
      {"probes", {"0", "-1", "1000", "2.5", "six", "99999999999999999999"}},
      {"hash", {"0", "16", "128", "sixty-four"}},
      {"nosuchparameter", {"1"}},
  };
  for (const auto& [key, values] : bad) {
    for (const auto& value : values) {
      const std::string text = spec.WithParam(key, value);
      std::unique_ptr<FilterPolicy> p;
      Status s = NewFilterPolicy(text, &p);
      EXPECT_TRUE(s.IsInvalidArgument()) << "'" << text << "' gave " << s.ToString();
      EXPECT_NE(s.message().find(key), std::string::npos)
          << "the error for '" << text << "' does not name the parameter: " << s.ToString();
    }
  }
}

TEST_P(FilterProperty, OpenFilterSurvivesTruncationAndCorruption) {
  const std::vector<uint64_t> added = TestHashes(0xC0, 1000);
  auto f = Build(added);
  ASSERT_NE(f, nullptr);
  const std::string bytes = f->Serialize();
  const bool flt1 = HasFilterlabTrailer(Slice(bytes.data(), bytes.size()));

  auto open = [](std::string_view damaged, const std::string& what) {
    ExactBuffer buffer(damaged);
    std::unique_ptr<Filter> opened;
    Status s = OpenFilter(buffer.slice(), &opened);
    if (s.ok()) {
      if (opened == nullptr) {
        ADD_FAILURE() << what << ": OpenFilter returned OK but no filter";
        return s;
      }
      ExerciseOpenedFilter(*opened, damaged.size(), what);
    } else {
      EXPECT_FALSE(s.message().empty()) << what << ": error without a message";
    }
    return s;
  };

  // Every truncation. Some prefixes are valid filters of another format (a
  // trailer byte of 0 reads as RocksDB's always-true marker); none may crash.
  for (size_t len = 0; len < bytes.size(); ++len) {
    open(std::string_view(bytes).substr(0, len), GetParam() + " truncated to " + std::to_string(len));
  }
  // The empty slice is RocksDB's empty filter: always false, documented.
  {
    std::unique_ptr<Filter> empty;
    ASSERT_TRUE(OpenFilter(Slice(), &empty).ok());
    EXPECT_FALSE(empty->MayContain(added[0]));
  }
  // Dropping the first byte keeps a filterlab trailer's magic but breaks its lengths.
  if (flt1) {
    Status s = open(std::string_view(bytes).substr(1), "first byte dropped");
    EXPECT_TRUE(s.IsCorruption()) << GetParam() << ": " << s.ToString();
  }
  // Corrupt each of the last 32 bytes (the trailer and the end of the data).
  const size_t tail = std::min<size_t>(bytes.size(), 32);
  for (size_t i = bytes.size() - tail; i < bytes.size(); ++i) {
    for (int mask : {0x01, 0x10, 0x80, 0xff}) {
      std::string damaged = bytes;
      damaged[i] = static_cast<char>(damaged[i] ^ mask);
      Status s = open(damaged, GetParam() + ": byte " + std::to_string(i) + " ^ " + std::to_string(mask));
      // In a filterlab trailer the 12 length bytes must add up to the size.
      const bool length_field = flt1 && i >= bytes.size() - 16 && i < bytes.size() - 4;
      if (length_field) {
        EXPECT_TRUE(s.IsCorruption()) << GetParam() << ": corrupted trailer length byte " << i
                                      << " opened anyway: " << s.ToString();
      }
    }
  }
}

// For variants stored with filterlab's trailer: the layout text must describe
// the data exactly, and a reader must refuse a layout that does not.
TEST_P(FilterProperty, OpenFilterChecksLayoutAgainstData) {
  const std::vector<uint64_t> added = TestHashes(0x1A, 1000);
  auto f = Build(added);
  ASSERT_NE(f, nullptr);
  const std::string bytes = f->Serialize();
  Slice data;
  std::string layout;
  if (!HasFilterlabTrailer(Slice(bytes.data(), bytes.size()))) GTEST_SKIP() << "native (RocksDB) format";
  ASSERT_TRUE(ParseFilterlabTrailer(Slice(bytes.data(), bytes.size()), &data, &layout).ok());
  const std::string_view data_view(data.data(), data.size());

  auto rewrap = [](std::string_view d, std::string_view l) {
    std::string out;
    AppendWithFilterlabTrailer(Slice(d.data(), d.size()), l, &out);
    return out;
  };
  auto expect_refused = [&](const std::string& damaged, const std::string& what) {
    ExactBuffer buffer(damaged);
    std::unique_ptr<Filter> opened;
    Status s = OpenFilter(buffer.slice(), &opened);
    EXPECT_TRUE(s.IsCorruption()) << GetParam() << ": " << what << " opened anyway (" << s.ToString() << ")";
    EXPECT_FALSE(s.message().empty());
  };
  if (data_view.size() >= 8) {
    expect_refused(rewrap(data_view.substr(0, data_view.size() - 8), layout), "data 8 bytes shorter than layout");
  }
  expect_refused(rewrap(std::string(data_view) + std::string(64, '\0'), layout), "data 64 bytes longer than layout");
  expect_refused(rewrap(data_view, layout + ",nosuchparameter=1"), "layout with an unknown parameter");
  FilterSpec parsed;
  ASSERT_TRUE(FilterSpec::Parse(layout, &parsed).ok());
  const std::string renamed = "nosuchvariant" + layout.substr(parsed.variant().size());
  expect_refused(rewrap(data_view, renamed), "layout naming an unknown variant");
  expect_refused(rewrap(data_view, "not a spec at all ="), "layout that is not a spec");

  // Every number in the layout replaced by extreme values: a reader must
  // validate before it allocates or indexes.
  for (const char* extreme : {"0", "1", "63", "4294967296", "18446744073709551615", "-1", "1e308"}) {
    std::string mutated;
    for (size_t i = 0; i < layout.size();) {
      if (layout[i] >= '0' && layout[i] <= '9' && i > 0 && layout[i - 1] == '=') {
        size_t j = i;
        while (j < layout.size() && layout[j] != ',') ++j;
        std::string candidate = layout.substr(0, i) + extreme + layout.substr(j);
        ExactBuffer buffer(rewrap(data_view, candidate));
        std::unique_ptr<Filter> opened;
        Status s = OpenFilter(buffer.slice(), &opened);
        if (s.ok()) {
          ExerciseOpenedFilter(*opened, data_view.size(), "layout '" + candidate + "'");
        } else {
          EXPECT_FALSE(s.message().empty());
        }
        i = j;
      } else {
        ++i;
      }
    }
  }
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(FilterProperty);
INSTANTIATE_TEST_SUITE_P(Registered, FilterProperty, testing::ValuesIn(PropertySpecs()), SpecTestName);

// ---------------------------------------------------------------------------
// 10^7 keys (see LargeSpecs for which specs and why).

class FilterPropertyLarge : public FilterProperty {};

TEST_P(FilterPropertyLarge, TenMillionKeysNoFalseNegativesAndModelFp) {
  // Under sanitizers 2*10^6 keys: still millions of index computations, at a
  // fifth of the time; the 4-sigma bound below follows kQueries.
  constexpr size_t kKeys = SanitizerScaled(10'000'000, 5);
  constexpr uint64_t kQueries = SanitizerScaled(1'000'000, 5);
  const std::vector<uint64_t> added = TestHashes(0x10E7, kKeys);
  auto f = Build(added);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(FirstFalseNegative(*f, added, /*single_too=*/false), -1) << GetParam();
  // The single-query path on a sample (the batch path covered every key).
  for (size_t i = 0; i < added.size(); i += 101) {
    ASSERT_TRUE(f->MayContain(added[i])) << GetParam() << ": false negative for added hash #" << i;
  }
  // At 10^7 keys equal 32-bit hashes add ~n/2^32 = 0.23% to the FP rate, far
  // more than 4 sigma (~0.04%): the model must include that term.
  ExpectFpWithinBound(MeasureFp(*f, *policy_, kKeys, 0x10E8, kQueries), GetParam(), kKeys);
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(FilterPropertyLarge);
INSTANTIATE_TEST_SUITE_P(Registered, FilterPropertyLarge, testing::ValuesIn(LargeSpecs()), SpecTestName);

// ---------------------------------------------------------------------------
// The registry as a whole

TEST(FilterRegistry, HasVariantsWithUsableExamples) {
  const auto variants = RegisteredFilterVariants();
  ASSERT_FALSE(variants.empty()) << "no filter variant is registered: the property tests above test nothing";
  for (const FilterVariant* v : variants) {
    SCOPED_TRACE(v->name);
    EXPECT_NE(std::string(v->summary), "");
    EXPECT_NE(std::string(v->params), "");
    EXPECT_NE(v->create, nullptr);
    // (A reader is not required: an alias such as worm64 makes filters that
    // serialize under the family's name; SerializeOpenRoundTrip checks that
    // every example's filters can be read back.)
    EXPECT_EQ(FindFilterVariant(v->name), v);
    for (const auto& e : v->examples_at_10_bpk) {
      std::unique_ptr<FilterPolicy> p;
      Status s = NewFilterPolicy(e, &p);
      ASSERT_TRUE(s.ok()) << e << ": " << s.ToString();
      EXPECT_EQ(p->variant(), v->name) << e;
    }
  }
  EXPECT_FALSE(AllExampleSpecs().empty()) << "no variant has an example spec";
}

TEST(FilterRegistry, UnknownVariantListsTheKnownOnes) {
  std::unique_ptr<FilterPolicy> p;
  Status s = NewFilterPolicy("nosuchfilter:bpk=10", &p);
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.message().find("nosuchfilter"), std::string::npos) << s.ToString();
  for (const FilterVariant* v : RegisteredFilterVariants()) {
    EXPECT_NE(s.message().find(v->name), std::string::npos) << "message does not list '" << v->name << "'";
  }
}

TEST(FilterRegistry, MalformedSpecsAreRejectedWithTheReason) {
  const auto variants = RegisteredFilterVariants();
  const std::string v = variants.empty() ? "standard" : variants.front()->name;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "missing variant name"},
      {"   ", "missing variant name"},
      {":bpk=10", "missing variant name"},
      {"bad name:bpk=10", "variant name"},
      {v + ":bpk", "not of the form key=value"},
      {v + ":bpk=10,probes", "not of the form key=value"},
      {v + ":bpk=10,,probes=6", "not of the form key=value"},
      {v + ":bpk=10,", "not of the form key=value"},
      {v + ":bpk=", "has no value"},
      {v + ":=10", "bad parameter name"},
      {v + ":bpk=10,bpk=11", "given twice"},
  };
  for (const auto& [spec, reason] : cases) {
    std::unique_ptr<FilterPolicy> p;
    Status s = NewFilterPolicy(spec, &p);
    EXPECT_TRUE(s.IsInvalidArgument()) << "'" << spec << "' gave " << s.ToString();
    EXPECT_NE(s.message().find(reason), std::string::npos) << "'" << spec << "': " << s.ToString();
  }
}

TEST(FilterRegistry, OpenFilterNeverCrashesOnRandomBytes) {
  SplitMix64 rng(0x4A2D);
  std::vector<size_t> lengths;
  for (size_t n = 0; n <= 24; ++n) lengths.push_back(n);
  for (size_t n : {31, 63, 64, 65, 69, 100, 517, 4096, 4101}) lengths.push_back(n);
  // The native trailers a reader dispatches on, so random data reaches every
  // native reader: FastLocalBloom (ff 00 k 00 00), legacy (k, LE32 lines),
  // always-true (00), and random.
  for (size_t len : lengths) {
    for (int trial = 0; trial < 40; ++trial) {
      std::string bytes(len, '\0');
      for (auto& c : bytes) c = static_cast<char>(rng.Next());
      if (len >= 5) {
        char* t = bytes.data() + len - 5;
        const uint64_t r = rng.Next();
        switch (trial % 5) {
          case 0: t[0] = static_cast<char>(0xff), t[1] = 0, t[2] = static_cast<char>(r & 63), t[3] = t[4] = 0; break;
          case 1: {
            t[0] = static_cast<char>(1 + r % 30);
            const uint32_t lines = static_cast<uint32_t>((r >> 8) % 4 == 0 ? (len - 5) / 64 : r >> 16);
            std::memcpy(t + 1, &lines, 4);
            break;
          }
          case 2: t[0] = 0; break;
          default: break;
        }
      }
      ExactBuffer buffer(bytes);
      std::unique_ptr<Filter> opened;
      Status s = OpenFilter(buffer.slice(), &opened);
      if (s.ok()) {
        ASSERT_NE(opened, nullptr);
        ExerciseOpenedFilter(*opened, len, "random bytes of length " + std::to_string(len));
      } else {
        EXPECT_FALSE(s.message().empty());
      }
    }
  }
}

}  // namespace
}  // namespace filterlab
