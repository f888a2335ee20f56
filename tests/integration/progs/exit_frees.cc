// SPDX-License-Identifier: GPL-3.0-or-later
// exit_frees.cc - memory allocated while tracing and released on the way
// out: by a global object's destructor, by an atexit handler registered
// before mtrace(), and by an ELF destructor.  None of it is a leak.
// Known leaks: 555 only.
#include <cstdlib>
#include <map>
#include <mcheck.h>
#include <string>

static std::map<int, std::string> registry; // destroyed after main returns
static void *by_atexit;
static void *by_destructor;

static void release_at_exit()
{
    std::free(by_atexit);
}

__attribute__((destructor)) static void release_in_destructor()
{
    std::free(by_destructor);
}

int main()
{
    std::atexit(release_at_exit);
    mtrace();
    for (int i = 0; i < 200; i++)
        registry[i] = std::string(40 + i % 20, 'v');
    by_atexit = std::malloc(300);
    by_destructor = std::malloc(400);
    void *leak = std::malloc(555);
    __asm__ volatile(""
                     :
                     : "r"(leak), "r"(by_atexit), "r"(by_destructor)
                     : "memory");
    return 0;
}
