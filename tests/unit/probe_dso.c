/* SPDX-License-Identifier: GPL-3.0-or-later */
/* probe_dso.c - a tiny module for the modmap dlopen/dlclose tests.
 */
int probe_dso_function(int x);

int probe_dso_function(int x)
{
    return x * 3 + 1;
}
