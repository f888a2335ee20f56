// SPDX-License-Identifier: GPL-3.0-or-later
// verdicts_cxx_old.cc - a copy-on-write std::string (the pre-C++11 ABI):
// the object points 24 bytes into its representation block.
#define _GLIBCXX_USE_CXX11_ABI 0
#include <string>

void *old_abi_string();

void *old_abi_string()
{
    return new std::string(1300, 'y');
}
