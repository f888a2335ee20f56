/* probe_dso.c - a tiny module for the modmap dlopen/dlclose tests.
 * GPL-3.0-or-later. */
int probe_dso_function(int x);

int probe_dso_function(int x)
{
    return x * 3 + 1;
}
