/* SPDX-License-Identifier: GPL-3.0-or-later */
// cxx.cc - C++ for the fastunwind tests: template recursion, lambdas
// through std::function, unwinding inside a catch block and inside a
// destructor run while an exception propagates.
#include "compare.h"
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace
{

template <int N> struct Level {
    __attribute__((noinline)) static int run(std::vector<std::string> &trail,
                                             const std::function<void()> &leaf)
    {
        trail.push_back(std::to_string(N)); // a call that may throw: cleanups
        int r = Level<N - 1>::run(trail, leaf);
        trail.pop_back();
        return r + N;
    }
};

template <> struct Level<0> {
    __attribute__((noinline)) static int run(std::vector<std::string> &,
                                             const std::function<void()> &leaf)
    {
        leaf();
        return 0;
    }
};

struct Capturing {
    capture *c;
    ~Capturing()
    {
        capture_here(c);
    }
};

__attribute__((noinline)) void throw_deep(int depth)
{
    if (depth == 0)
        throw std::runtime_error("deep");
    std::string keep(static_cast<size_t>(depth) + 20, 'x'); // a cleanup
    throw_deep(depth - 1);
    asm volatile("" ::"r"(keep.data()) : "memory");
}

__attribute__((noinline)) void throw_through_destructor(capture *c, int depth)
{
    Capturing guard{ c };
    if (depth == 0)
        throw std::logic_error("unwinding");
    throw_through_destructor(c, depth - 1);
    asm volatile("" ::: "memory");
}

} // namespace

extern "C" int cxx_templates(capture *c)
{
    std::vector<std::string> trail;
    return Level<12>::run(trail, [c] { capture_here(c); });
}

// Throws through 8 frames, catches, then unwinds from inside the handler.
extern "C" int cxx_in_catch(capture *c)
{
    try {
        throw_deep(8);
    } catch (const std::exception &e) {
        std::vector<std::string> trail;
        Level<5>::run(trail, [c] { capture_here(c); });
        return static_cast<int>(std::string(e.what()).size());
    }
    return -1;
}

// Unwinds from a destructor called during the propagation of an exception.
extern "C" int cxx_in_cleanup(capture *c)
{
    try {
        throw_through_destructor(c, 6);
    } catch (const std::logic_error &) {
        return 1;
    }
    return 0;
}
