// SPDX-License-Identifier: GPL-3.0-or-later
// leak_template.cc - leaks through operator new inside template members.
// Known leaks: 100 (new int[25]), 40 (new Widget), 120 (new Widget[3]).
#include <mcheck.h>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

struct Widget {
	char data[40];
};

template <typename T> class Pool {
public:
	__attribute__((noinline)) T *grab(std::size_t n)
	{
		T *p = new T[n];
		escape(p);
		return p;
	}
	__attribute__((noinline)) T *make_one()
	{
		T *p = new T();
		escape(p);
		return p;
	}

private:
	static void escape(const void *p)
	{
		__asm__ volatile("" : : "r"(p) : "memory");
	}
};

static void *kept[3];

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
	delete[] Pool<long>().grab(7);
}

int main()
{
	mtrace();
	kept[0] = Pool<int>().grab(25);
	kept[1] = Pool<Widget>().make_one();
	kept[2] = Pool<Widget>().grab(3);
	no_leaks();
	__asm__ volatile("" : : "r"(kept) : "memory");
	return 0;
}
