// SPDX-License-Identifier: Apache-2.0
// `blockbloom COMMAND --help`: every option of every command with its default
// (tests/cli_core_test.cc checks each option the parser accepts is listed
// here with a default or "required").
#include <string>
#include <string_view>

#include "blockbloom/layout.h"
#include "tools/cli/commands.h"

namespace blockbloom::cli {
namespace {

// Stands for the layout names, filled in from kLayoutTraits (LayoutNames()) by CommandHelp.
#define BB_LAYOUTS "@LAYOUTS@"
#define BB_STRIP_CR                                                                                     \
  "  --strip-cr       drop one '\\r' ending a line (CRLF files); without it such keys keep the '\\r',\n" \
  "                   differ from the same keys without it, and a warning counts them (default: off)\n"
#define BB_KEYS                                                                                        \
  "  --keys FILE      keys, one per line, split on \\n only, never trimmed but for --strip-cr (default:\n" \
  "                   standard input, also given as '-'; FILE must be a regular file: pipe keys in through\n" \
  "                   stdin)\n"       \
  "  --key-width W    read fixed-width binary records of W bytes instead of lines, 1..1048576\n"         \
  "                   (default: lines)\n" BB_STRIP_CR
#define BB_OUT                                                                                          \
  "  -o OUT           the output file (required); replaced atomically (temporary file + rename), never\n" \
  "                   written into: a symbolic link's target is replaced, a directory, FIFO, socket or\n"  \
  "                   device is refused\n"

struct Help {
  std::string_view name;
  std::string_view text;
};

constexpr Help kHelp[] = {
    {"demo",
     "usage: blockbloom demo [options]\n"
     "Builds a blocked filter, inserts and probes keys on every SIMD target this CPU runs, and reports\n"
     "ns/key, the measured false-positive rate beside the model's, and the memory used.\n"
     "  --n N            keys, 1..2^40 (default: 10000000)\n"
     "  --fpr P          target false-positive rate, 0 < P < 1 (default: 0.01)\n"
     "  --layout L       one of " BB_LAYOUTS " (default: blocked512)\n"
     "  --reps R         runs per target, the median is shown, 1..100 (default: 3)\n"
     "  --batch B        keys per batch call, 1..2^30 (default: 65536)\n"},
    {"params",
     "usage: blockbloom params --n N --fpr P [options]\n"
     "Sizes a filter for N keys at rate P by the exact model: bits, bytes, bits/key, k, predicted rate.\n"
     "  --n N            keys, 1..2^40, digits or shorthand such as 1e6 (required)\n"
     "  --fpr P          false-positive rate, 0 < P < 1 (required)\n"
     "  --layout L       one of " BB_LAYOUTS " (default: every layout)\n"
     "  --format F       text, csv or json (default: text)\n"},
    {"table",
     "usage: blockbloom table --layout L [options]\n"
     "The model's false-positive rate by bits per key (rows) and k (columns).\n"
     "  --layout L       one of " BB_LAYOUTS " (required)\n"
     "  --mn A:B         bits per key, rows A..B step 1, 1 <= A <= B <= 1000 (default: 2:16)\n"
     "  --k C:D          k, columns C..D (default: every k the layout accepts)\n"
     "  --n N            keys, 1..2^40 (default: 1000000)\n"
     "  --format F       text or csv (default: text)\n"},
    {"verify",
     "usage: blockbloom verify [options]\n"
     "Builds real filters over a grid, measures their rates against an exact set of the keys and holds\n"
     "each to the model's binomial interval; exits 1 if one falls outside.\n"
     "  --layout L,...   layouts among " BB_LAYOUTS " (default: every layout)\n"
     "  --keys N         keys per filter, 1..2^32 (default: 1000, 100000 and 10000000)\n"
     "  --probes N       absent probes per point, 1..2^36 (default: enough for the interval)\n"
     "  --bits-per-key B,...  bits per key, each 1..1000 (default: 4,8,12,16,20,24)\n"
     "  --streams S,...  key streams: random, sequential, urls (default: random,urls)\n"
     "  --confidence C   acceptance level, 0.5 < C < 1 (default: 0.999)\n"
     "  --format F       text or csv; markdown too with --streamed (default: text)\n"
     "  --streamed       no exact set: SplitMix64 keys, probes from a disjoint range (absent by\n"
     "                   construction), to 10^9 keys; one filter per layout x bits per key (default 10)\n"
     "                   and probes enough for +-5% at 99.99% (capped at 10^10) (default: off)\n"
     "  --blocks B       with --streamed: exactly B blocks (bits for classic) (default: from --bits-per-key)\n"
     "  --k K            with --streamed: bits per key (default: the model's best k)\n"},
    {"build",
     "usage: blockbloom build --layout L (--n N --fpr P | --bits-per-key B | --bytes N) -o OUT [options]\n"
     "Builds a filter from keys (a file or standard input) and saves it. Warns on stderr (exit 0) when\n"
     "more keys went in than --n and the predicted rate is more than twice --fpr.\n"
     "  --layout L       one of " BB_LAYOUTS " (required)\n"
     "  --n N            keys to size for, 1..2^40 (default: the number of keys read)\n"
     "  --fpr P          size by the exact model for rate P, 0 < P < 1 (one sizing mode is required)\n"
     "  --bits-per-key B size as B bits per key of --n (one sizing mode is required)\n"
     "  --bytes N        size as N bytes, rounded up to whole blocks (one sizing mode is required)\n"
     "  --k K            hash functions, within the layout's range (default: the model's best k)\n"
     "  --hash H         xxh3, xxh64, mulx, rocksdb, aes or foldmul (default: xxh3; split256 with xxh64\n"
     "                   seed 0 is Parquet's; blocked512 with rocksdb seed 0 is RocksDB's full filter;\n"
     "                   mulx, aes, foldmul: cheaper single-key hashes (foldmul the cheapest), for\n"
     "                   integer keys no adversary picks)\n"
     "  --seed S         hash seed, 0..2^64-1 (default: 0)\n" BB_KEYS BB_OUT},
    {"query",
     "usage: blockbloom query FILTER [options]\n"
     "Answers keys (a file or standard input) against a filter file.\n" BB_KEYS
     "  --output O       bits (one 0/1 line per key), hits (the keys that may be present) or count\n"
     "                   (default: bits)\n"},
    {"stats",
     "usage: blockbloom stats FILTER [options]\n"
     "Parameters, fill, distinct keys estimated from the fill, and the model's rate now; says so when the\n"
     "header claims more keys than the filter can meaningfully hold.\n"
     "  --format F       text or json (default: text; json escapes any file name into valid UTF-8)\n"},
    {"merge",
     "usage: blockbloom merge A B -o OUT\n"
     "The union of two compatible filters (same layout, size, k, hash and seed; refuses others, naming\n"
     "why). Keys inserted add up, saturating at 2^64-1.\n" BB_OUT},
    {"intersect",
     "usage: blockbloom intersect A B -o OUT\n"
     "The bitwise AND of two compatible filters (same layout, size, k, hash and seed; refuses others,\n"
     "naming why). Every key inserted into both is still found and the false-positive rate is at most\n"
     "either input's, but it is not the filter of the intersection set: bits set in A and in B by\n"
     "different keys survive. Keys inserted: the smaller of the two counts; `stats OUT` estimates the\n"
     "distinct keys from the fill (an over-count of the keys in both).\n" BB_OUT},
    {"fold",
     "usage: blockbloom fold FILTER -o OUT\n"
     "Halves the filter (needs an even block count; classic: bit count) and prints the model's\n"
     "false-positive rate for its keys before and after; warns on stderr when it more than doubles.\n" BB_OUT},
    {"import-parquet",
     "usage: blockbloom import-parquet FILE -o OUT [options]\n"
     "Reads a Parquet split-block Bloom filter (Thrift BloomFilterHeader + bitset) as a split256 filter.\n"
     "  --bytes N        FILE is a bare bitset of exactly N bytes (default: FILE starts with the header;\n"
     "                   when it does not parse and FILE is whole 32-byte blocks, the error suggests this)\n" BB_OUT},
    {"export-parquet",
     "usage: blockbloom export-parquet FILTER -o OUT [options]\n"
     "Writes a split256 / xxh64 / seed 0 filter as a Parquet split-block Bloom filter bitset.\n"
     "  --with-header    put the Thrift-compact BloomFilterHeader first (default: off, bitset only)\n" BB_OUT},
    {"import-rocksdb",
     "usage: blockbloom import-rocksdb FILE -o OUT [options]\n"
     "Reads a RocksDB full filter (FastLocalBloom: bitset + 5-byte trailer) as a blocked512 filter with\n"
     "hash rocksdb, seed 0; FILE is the filter block or a block-based SST file (its\n"
     "fullfilter.rocksdb.BuiltinBloomFilter block). Ribbon, legacy and partitioned filters are refused.\n"
     "  --block          FILE is a filter block (default: an SST when it ends with the block-based magic)\n"
     "  --sst            FILE is an SST file (default: as for --block, by the magic)\n" BB_OUT},
    {"export-rocksdb",
     "usage: blockbloom export-rocksdb FILTER -o OUT\n"
     "Writes a blocked512 / rocksdb / seed 0 filter as a RocksDB full filter block (bitset + trailer).\n" BB_OUT},
    {"targets",
     "usage: blockbloom targets\n"
     "Lists the compiled SIMD targets, which this CPU supports, and the one in use. No options.\n"},
    {"version",
     "usage: blockbloom version (or blockbloom --version)\n"
     "Prints the library version, the filter file format version and the SIMD targets compiled in.\n"
     "No options.\n"},
    {"bench",
     "usage: blockbloom bench [BENCHMARK_FLAGS...]\n"
     "Runs the Google Benchmark suites (the blockbloom_bench binary built beside this one); every\n"
     "argument goes to Google Benchmark (--benchmark_filter=REGEX, ...). tools/scripts/bench.sh builds them and\n"
     "writes the report.\n"},
    {"garden-build",
     "usage: blockbloom garden-build --type T (sizing options) -o OUT [options]\n"
     "Builds a counting filter, blocked counting filter or count-min sketch from keys (a file or\n"
     "standard input) and saves it as a garden file.\n"
     "  --type T         counting, blocked-counting or count-min (required)\n"
     "  --n N            keys to size for, 1..2^40, with --fpr (counting, blocked-counting; default: none)\n"
     "  --fpr P          false-positive rate to size for, 0 < P < 1, with --n (default: none)\n"
     "  --cells C        counting: exactly C counters, with --k (default: sized by --n and --fpr)\n"
     "  --blocks B       blocked-counting: exactly B 64-byte blocks, with --k (default: sized by --n, --fpr)\n"
     "  --k K            counters per key, counting 1..32, blocked-counting 1..16 (default: the best k)\n"
     "  --width W        counting: bits per counter, 1..32 (default: 4)\n"
     "  --eps E          count-min: over-count bound E x N with probability 1 - --delta (default: none)\n"
     "  --delta D        count-min: failure probability (default: 0.01)\n"
     "  --columns W      count-min: exactly W counters per row, instead of --eps (default: none)\n"
     "  --depth D        count-min with --columns: rows, 1..32 (default: 4)\n"
     "  --conservative   count-min: conservative update, raise only the minimum counters (default: off)\n"
     "  --hash H         xxh3, xxh64, mulx, rocksdb, aes or foldmul (default: xxh3)\n"
     "  --seed S         hash seed, 0..2^64-1 (default: 0)\n" BB_KEYS BB_OUT},
    {"garden-query",
     "usage: blockbloom garden-query FILE [options]\n"
     "Answers keys (a file or standard input) against a garden file.\n" BB_KEYS
     "  --output O       bits (0/1 per key), hits (the keys that may be present), count (how many may\n"
     "                   be present) or counts (the estimated count of each key) (default: bits)\n"},
    {"garden-stats",
     "usage: blockbloom garden-stats FILE [options]\n"
     "Type, parameters, fill and saturation of a garden file; with --keys, the top counts among them.\n"
     "  --format F       text or json (default: text)\n"
     "  --keys FILE      candidate keys to rank by count, with --top (default: none)\n"
     "  --key-width W    read --keys as fixed-width records of W bytes (default: lines)\n" BB_STRIP_CR
     "  --top N          how many of the highest counts to list, with --keys (default: 10)\n"},
    {"garden-merge",
     "usage: blockbloom garden-merge A B [C...] -o OUT [options]\n"
     "Merges garden files of one type and parameters (counting: saturating add; count-min: weighted\n"
     "add; A2, scalable, spectral MS); refuses, naming why, where a merge is not defined.\n"
     "  --weight W       count-min: multiply each input after the first by W, 0.. (default: 1)\n" BB_OUT},
};

#undef BB_LAYOUTS
#undef BB_KEYS
#undef BB_OUT
#undef BB_STRIP_CR

}  // namespace

std::string CommandHelp(std::string_view name) {
  constexpr std::string_view kLayoutsMark = "@LAYOUTS@";
  for (const Help& h : kHelp) {
    if (h.name != name) continue;
    std::string text(h.text);
    for (size_t at = text.find(kLayoutsMark); at != std::string::npos; at = text.find(kLayoutsMark, at))
      text.replace(at, kLayoutsMark.size(), LayoutNames());
    return text;
  }
  return {};
}

}  // namespace blockbloom::cli
