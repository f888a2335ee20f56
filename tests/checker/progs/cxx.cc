/* SPDX-License-Identifier: GPL-3.0-or-later */
// cxx.cc - C++ allocations: operator new inside libstdc++ is the caller
// glibc's tracer records, templates and member functions allocate.
//
// Copyright (C) 2026 the libmtrace authors.
#include <mcheck.h>
#include <string>
#include <vector>

namespace demo
{
template <typename T> struct Box {
    T *make(int n)
    {
        return new T[n]; // CALL:make
    }
};
struct Node {
    std::string name;
    Node *next = nullptr;
    void grow()
    {
        next = new Node{ name + "-child" }; // CALL:grow
    }
};
} // namespace demo

int main()
{
    mtrace();
    demo::Box<long> box;
    long *leak = box.make(12); // CALL:main-make
    demo::Node *root = new demo::Node{ "a fairly long root name for the heap" };
    root->grow(); // CALL:main-grow
    std::vector<int> v(100);
    (void)leak;
    return 0;
}
