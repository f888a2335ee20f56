// SPDX-License-Identifier: GPL-3.0-or-later
// real-cxx.cc - the C++ translation unit `make -C bench real` compiles
// with cc1plus -O2 (realbench.py preprocesses it first, so the timed run
// is the compiler proper): the whole standard library and <regex>, and 20
// instantiations of a class template using maps, hash maps, sets, regexes
// and string streams.  A real compiler's allocations: ~100k distinct
// stacks ~30 frames deep (issue 31).  Never linked or run.
// Copyright (C) 2026 the libmtrace authors.
#include <bits/stdc++.h>
#include <regex>

template <int N> struct Work {
    std::map<std::string, std::vector<int>> by_name;
    std::unordered_map<long, std::string> by_id;
    std::regex re{"([a-z]+)_(\\d+)"};

    std::string run(const std::string &s)
    {
        std::smatch m;
        std::string out;
        if (std::regex_search(s, m, re))
            out = m[1].str() + std::to_string(N);
        by_name[out].push_back(N);
        by_id[N] = out;
        std::set<std::pair<int, std::string>> sizes;
        for (auto &kv : by_name)
            sizes.insert({(int)kv.second.size(), kv.first});
        std::ostringstream os;
        os << sizes.size() << out;
        return os.str();
    }
};

#define I(n) template struct Work<n>;
I(0) I(1) I(2) I(3) I(4) I(5) I(6) I(7) I(8) I(9)
I(10) I(11) I(12) I(13) I(14) I(15) I(16) I(17) I(18) I(19)

int main()
{
    Work<0> w;
    return w.run("ab_12").empty();
}
