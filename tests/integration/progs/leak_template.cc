// SPDX-License-Identifier: GPL-3.0-or-later
// leak_template.cc - leaks through operator new inside template members.
// Known leaks: 100 (new int[25]), 40 (new Widget), 120 (new Widget[3]),
// 128 (an over-aligned object: operator new(size_t, align_val_t)).
#include <mcheck.h>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

struct Widget {
    char data[40];
};

struct alignas(128) Overaligned {
    char data[100];
};

template <typename T> class Pool
{
  public:
    // Both members use "this", so GCC keeps them as the (exported, with
    // -rdynamic) template instances instead of local .isra clones.
    __attribute__((noinline)) T *grab(std::size_t n)
    {
        T *p = new T[n];
        handed_out += n;
        escape(this);
        escape(p);
        return p;
    }
    __attribute__((noinline)) T *make_one()
    {
        T *p = new T();
        handed_out++;
        escape(this);
        escape(p);
        return p;
    }

  private:
    std::size_t handed_out = 0;

    static void escape(const void *p)
    {
        __asm__ volatile("" : : "r"(p) : "memory");
    }
};

static void *kept[4];

__attribute__((noinline)) static void no_leaks()
{
    std::vector<int> v;
    for (int i = 0; i < 1000; i++)
        v.push_back(i);
    std::string s(100, 'x');
    s += s;
    try {
        throw std::runtime_error(s);
    } catch (const std::exception &) {
    }
    Pool<long> longs;
    delete[] longs.grab(7);
    delete Pool<Overaligned>().make_one();
}

int main()
{
    mtrace();
    Pool<int> ints;
    Pool<Widget> widgets;

    kept[0] = ints.grab(25);
    kept[1] = widgets.make_one();
    kept[2] = widgets.grab(3);
    kept[3] = new Overaligned();
    no_leaks();
    __asm__ volatile("" : : "r"(kept) : "memory");
    return 0;
}
