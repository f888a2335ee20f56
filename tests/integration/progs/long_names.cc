// SPDX-License-Identifier: GPL-3.0-or-later
// long_names.cc - allocations inside a template member whose demangled
// name is several kilobytes long (nested template arguments).  Built with
// -rdynamic so the frame has a dynamic symbol and hence a "#f" record.
// Known leaks: 1000 (from Deep<...>::make).
#include <cstddef>
#include <cstdlib>
#include <map>
#include <mcheck.h>
#include <string>
#include <vector>

template <typename T> struct W {
    T value;
};

// 12 levels of W<std::map<std::string, ...>>: each level repeats the
// allocator and comparator of the one inside, so the name grows fast.
using L0 = std::vector<std::string>;
using L1 = W<std::map<std::string, L0>>;
using L2 = W<std::map<std::string, L1>>;
using L3 = W<std::map<std::string, L2>>;
using L4 = W<std::map<std::string, L3>>;
using L5 = W<std::map<std::string, L4>>;
using L6 = W<std::map<std::string, L5>>;
using L7 = W<std::map<std::string, L6>>;
using L8 = W<std::map<std::string, L7>>;

template <typename T> struct Deep {
    __attribute__((noinline)) void *make(std::size_t n)
    {
        void *p = std::malloc(n);
        count += n;
        __asm__ volatile("" : : "r"(p), "r"(this) : "memory");
        return p;
    }
    std::size_t count = 0;
};

int main()
{
    Deep<L8> d;
    mtrace();
    void *p = d.make(1000);
    std::free(d.make(10));
    __asm__ volatile("" : : "r"(p) : "memory");
    return 0;
}
