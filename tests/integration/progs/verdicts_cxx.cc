// SPDX-License-Identifier: GPL-3.0-or-later
// verdicts_cxx.cc - C++ objects that are held only through interior
// pointers, which memcheck's heuristics (and libmtrace's) accept: new[]
// of objects with destructors (the element count before the elements),
// a secondary base of multiple inheritance, std::string in both ABIs.
#include <mcheck.h>
#include <string>

void *old_abi_string(); // verdicts_cxx_old.cc: a std::string of the old ABI

struct Elem {
    long x[3];
    ~Elem()
    {
        x[0] = 0;
    }
};

struct A {
    virtual ~A()
    {
    }
    long a = 1;
};
struct B {
    virtual ~B()
    {
    }
    long b = 2;
};
struct C : A, B {
    long c = 3;
};

Elem *elems;
B *second_base;
std::string *new_abi;
void *old_abi;

int main()
{
    mtrace();
    elems = new Elem[7];                  // 8 + 7 * 24 = 176 bytes, held at +8
    second_base = new C;                  // 40 bytes, held at +16
    new_abi = new std::string(1200, 'x'); // 32-byte object, 1201-byte buffer
    old_abi = old_abi_string(); // 8-byte object, 24 + 1300 + 1 rep at +24
    Elem *lost = new Elem[9];   // 8 + 9 * 24 = 224: definitely lost
    __asm__ volatile("" : : "r"(lost) : "memory");
    return 0;
}
