// SPDX-License-Identifier: GPL-3.0-or-later
// tls_dtors.cc - 20 std::threads grow a thread_local std::string; its
// destructor frees the heap buffer while the thread exits (through
// __cxa_thread_atexit), after the thread's own code.  Known leaks: 64
// (main, at the end).
#include <cstdlib>
#include <mcheck.h>
#include <string>
#include <thread>
#include <vector>

thread_local std::string tls_text(200, 'x');

static void work()
{
    std::string more(300, 'y');
    tls_text += more;
    tls_text += "tail";
}

int main()
{
    std::vector<std::thread> threads;

    mtrace();
    for (int i = 0; i < 20; i++)
        threads.emplace_back(work);
    for (auto &t : threads)
        t.join();
    void *p = std::malloc(64);
    __asm__ volatile("" : : "r"(p) : "memory");
    return 0;
}
