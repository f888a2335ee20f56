/* SPDX-License-Identifier: GPL-3.0-or-later
 * block_preview.cc - what leaked blocks hold (tests-diff.sh): a string
 * (leak_text: "Hello, leaked world!" and its NUL), an object of a class
 * with virtual functions (leak_widget: a Widget, named by its vtable),
 * and one of a namespaced class (leak_gadget: shop::Gadget), all
 * definitely lost.  -O1, as verdicts.c: a returned frame's pointer is
 * left where it was. */
#include "util.h"
#include <mcheck.h>
#include <stdlib.h>
#include <string.h>

struct Widget {
    virtual ~Widget() {}
    virtual int size() const { return 7; }
    long payload = 0x1122334455667788;
};

namespace shop {
struct Gadget : Widget {
    int size() const override { return 9; }
};
} // namespace shop

__attribute__((noinline)) static void leak_text()
{
    char *p = static_cast<char *>(malloc(48));
    strcpy(p, "Hello, leaked world!");
    escape(p);
}

__attribute__((noinline)) static void leak_widget()
{
    escape(new Widget);
}

__attribute__((noinline)) static void leak_gadget()
{
    escape(new shop::Gadget);
}

int main()
{
    mtrace();
    leak_text();
    leak_widget();
    leak_gadget();
    return 0;
}
