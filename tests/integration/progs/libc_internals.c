/* SPDX-License-Identifier: GPL-3.0-or-later
 * libc_internals.c - libc keeps memory of its own: NSS lookups, locales,
 * iconv (which dlopen()s a gconv module), time zones, regex.  Freed by
 * __libc_freeres at exit, none of it may be reported.  Known leaks: none.
 * Usage: libc_internals [mtrace]   (with "mtrace", calls mtrace() first) */
#include <grp.h>
#include <iconv.h>
#include <locale.h>
#include <mcheck.h>
#include <netdb.h>
#include <pwd.h>
#include <regex.h>
#include <string.h>
#include <time.h>
#include "util.h"

static void name_lookups(void)
{
    struct addrinfo *ai = NULL;
    struct passwd *pw = getpwnam("root");
    struct group *gr = getgrnam("root");

    if (getaddrinfo("localhost", "80", NULL, &ai) == 0)
        freeaddrinfo(ai);
    say("%s %s\n", pw ? pw->pw_name : "-", gr ? gr->gr_name : "-");
}

static void text_services(void)
{
    iconv_t cd = iconv_open("UTF-8", "ISO-8859-1");
    time_t t = 86400 * 365;
    char buf[64];
    regex_t re;

    if (cd != (iconv_t)-1)
        iconv_close(cd);
    setlocale(LC_ALL, "C.UTF-8");
    strftime(buf, sizeof buf, "%Y-%m-%d", localtime(&t));
    if (regcomp(&re, "a[bc]+d", REG_EXTENDED) == 0) {
        say("%s %d\n", buf, regexec(&re, "abcbd", 0, NULL, 0));
        regfree(&re);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "mtrace") == 0)
        mtrace();
    name_lookups();
    text_services();
    return 0;
}
