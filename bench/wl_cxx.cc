/* SPDX-License-Identifier: GPL-3.0-or-later */
// wl_cxx.cc - C++ container and string churn for `make bench`:
// std::string building, std::vector growth and std::map insert/erase,
// all reached through a 6-frame chain, so each allocation's stack also
// holds libstdc++'s operator new frames.
//
//   wl_cxx COUNT      COUNT iterations (~20 allocations each)
//
// Calls mtrace() first and muntrace() last, like the C workloads.
//
// Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later.
#include <mcheck.h>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>
#include "chain.h"

namespace
{

constexpr int kDepth = 6;
constexpr unsigned kVariants = 16;
constexpr unsigned long kMapKeys = 4096; // bounds the map's live size

struct State {
    std::map<unsigned long, std::string> index;
    unsigned long checksum = 0;
};

// Longer than the small-string buffer (15 chars), so every string allocates.
std::string make_name(unsigned long i)
{
    return "workload-item-" + std::to_string(i) + "-" +
           std::to_string(mix(i) % 1000);
}

// One iteration: a vector of fresh strings that grows (several reallocs),
// then one map slot replaced (node free + node and string alloc).
__attribute__((noinline)) void churn(struct walk *w)
{
    State *st = static_cast<State *>(w->ctx);
    std::vector<std::string> names;
    for (unsigned long k = 0; k < 8; k++)
        names.push_back(make_name(w->i + k));
    unsigned long key = mix(w->i) % kMapKeys;
    st->index.erase(key);
    st->index.emplace(key, names[w->i % names.size()] + "/indexed");
    st->checksum += names.back().size();
}

__attribute__((noinline)) void run(unsigned long count, State &st)
{
    struct walk w = {};
    w.leaf = churn;
    w.ctx = &st;
    for (w.i = 0; w.i < count; w.i++) {
        w.variant = mix(w.i * 7 + 1) % kVariants;
        chain_call(&w, kDepth);
    }
}

// A deliberate leak, so leak checkers have something to report.
__attribute__((noinline)) void leak_a_few()
{
    for (int n = 0; n < 3; n++) {
        std::string *volatile s = new std::string(make_name(n));
        (void)s;
    }
}

} // namespace

int main(int argc, char **argv)
{
    unsigned long count = argc > 1 ? std::strtoul(argv[1], nullptr, 0) : 10000;
    mtrace();
    {
        State st;
        run(count, st);
        leak_a_few();
        if (st.checksum == 1) // keeps the work observable
            return 3;
    }
    muntrace();
    return 0;
}
