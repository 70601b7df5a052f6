"""Every filter's prefetch survives the compiler.

A prefetch has no visible effect, and GCC counts __builtin_prefetch as none:
a scheme's Prefetch that is not inlined early is judged const and its calls
are deleted, so the function compiles to a bare `ret` and pipelined queries
wait for every line (cache_worm64_block ran at 7x the memory floor that way).
No test of answers can see it; the machine code can. This reads the
simulator's disassembly and fails on any prefetch function whose first
instruction is `ret`, except the ones that are empty by design."""

import re
import shutil
import subprocess

import pytest

from experiments.workers import build_dir

# Empty by design: the base class's default and the views of filters whose
# query reads nothing worth prefetching.
EMPTY_BY_DESIGN = re.compile(r"EmptyPrefetch|<filterlab::Filter::Prefetch\(unsigned long\) const>|ProbeOnlyScheme")
SYMBOL = re.compile(r"^[0-9a-f]+ <(?P<name>.*[Pp]refetch.*)>:$")


def bare_ret_prefetches(disassembly):
    """The prefetch functions of `objdump -d -C` output whose first instruction is ret."""
    lines = disassembly.splitlines()
    found = []
    for i, line in enumerate(lines):
        m = SYMBOL.match(line)
        if m and i + 1 < len(lines) and lines[i + 1].split("\t")[-1].strip() == "ret":
            if not EMPTY_BY_DESIGN.search(line):
                found.append(m.group("name"))
    return found


def test_the_check_finds_an_emptied_prefetch():
    # As objdump printed cache_worm64_block's view prefetch when GCC had deleted its body.
    emptied = ("0000000000278e40 <void filterlab::worm::ViewPrefetch<filterlab::worm::(anonymous namespace)::"
               "CacheWorm64BlockScheme, (filterlab::HashWidth)64>(filterlab::FilterView const&, unsigned long)>:\n"
               "  278e40:\tret\n\n"
               "00000000001148e0 <filterlab::fastlocal::(anonymous namespace)::EmptyPrefetch(filterlab::FilterView "
               "const&, unsigned long)>:\n  1148e0:\tret\n")
    assert len(bare_ret_prefetches(emptied)) == 1


def test_no_prefetch_function_is_a_bare_ret():
    assert shutil.which("objdump"), "objdump (binutils, installed with g++) is needed to read the machine code"
    sim = build_dir() / "sim" / "filterlab-sim"
    if not sim.exists():
        pytest.fail(f"{sim} is missing: build it (./filterlab build)")
    disassembly = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-C", str(sim)], capture_output=True,
                                 text=True, check=True).stdout
    # The simulator links every filter's view prefetch: the check reads real functions.
    assert len(re.findall(r"ViewPrefetch<", disassembly)) > 10
    found = bare_ret_prefetches(disassembly)
    assert not found, "prefetch functions the compiler emptied (their calls do nothing):\n" + "\n".join(found)
