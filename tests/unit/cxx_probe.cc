/* SPDX-License-Identifier: GPL-3.0-or-later */
// cxx_probe.cc - a C++ function with a mangled, exported name for the
// frametab demangling test.  No library code is used, so the runner needs
// no libstdc++.
#include <stdint.h>

namespace mtt
{
template <class T> struct box {
    T v;
};

// Not inline and externally visible: it must exist as a dynamic symbol.
__attribute__((noinline)) int probe(box<int> const &b, char c)
{
    return b.v + c;
}
} // namespace mtt

extern "C" uintptr_t ut_cxx_probe_address(void)
{
    return reinterpret_cast<uintptr_t>(&mtt::probe);
}
