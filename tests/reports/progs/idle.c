/* SPDX-License-Identifier: GPL-3.0-or-later */
/* idle.c - allocates 4242 bytes, says so, then blocks in read() until its
 * standard input closes.  Output through write(2): stdio would allocate a
 * buffer of its own. */
#include <stdlib.h>
#include <unistd.h>

static void *volatile keep;

int main(void)
{
    keep = malloc(4242);
    if (write(1, "ready\n", 6) != 6)
        return 1;
    char buf[16];
    ssize_t n = read(0, buf, sizeof buf);
    const char *done = n == 0 ? "end of input\n" : "input\n";
    return write(1, done, n == 0 ? 13 : 6) < 0;
}
