/* SPDX-License-Identifier: GPL-3.0-or-later
 * tls_plugin.c - a dlopen()ed module with large __thread variables: each
 * thread's first access goes through __tls_get_addr, which mallocs. */
#include <string.h>

__thread char tls_big[100000];
__thread int tls_counter;

int tls_touch(int v);

int tls_touch(int v)
{
    tls_big[v % (int)sizeof tls_big] = (char)v;
    tls_counter += v;
    return tls_counter + tls_big[0];
}
