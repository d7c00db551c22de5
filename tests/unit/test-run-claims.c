/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for translate/run/claim.c: a run's claim on its directories,
 * and the sweep that removes what a killed run left.  A claim nobody holds
 * is swept, one a live process holds is not; a claim is read as hostile:
 * only bento-named directories, reached without a symlink, owned by the
 * user and (with an identity) the very object recorded are removed.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "run/claim.h"
#include "tap.h"

static char top[] = "/tmp/bento-claims-XXXXXX";
static char runs[64], area[64];

static const char *at(const char *base, const char *name)
{
        static char buf[4][512];
        static int which;

        which = (which + 1) % 4;
        snprintf(buf[which], sizeof(buf[which]), "%s/%s", base, name);
        return buf[which];
}

static bool exists(const char *path)
{
        struct stat st;

        return lstat(path, &st) == 0;
}

static int count_claims(void)
{
        char cmd[128];
        FILE *p;
        int n = -1;

        snprintf(cmd, sizeof(cmd), "ls %s | grep -c '\\.claim$'", runs);
        p = popen(cmd, "r");
        if (p && fscanf(p, "%d", &n) != 1)
                n = -1;
        if (p)
                pclose(p);
        return n;
}

/* Fresh runs/ and area/ (where the claimed directories go). */
static int fresh(void)
{
        char cmd[160];

        snprintf(cmd, sizeof(cmd), "rm -rf %s/runs %s/area", top, top);
        if (system(cmd) != 0 || mkdir(runs, 0700) < 0 || mkdir(area, 0755) < 0)
                return -1;
        return 0;
}

static int runs_fd(void)
{
        return open(runs, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

static void write_file(const char *path, const char *text)
{
        FILE *f = fopen(path, "w");

        if (f) {
                fputs(text, f);
                fclose(f);
        }
}

static void ident_of(const char *path, char *buf, size_t size)
{
        struct stat st = {0};

        lstat(path, &st);
        snprintf(buf, size, "%ju:%ju", (uintmax_t) st.st_dev, (uintmax_t) st.st_ino);
}

/* A claim as a killed run leaves it: taken, two directories made (one
 * with a file and a subdirectory in it), never dropped. */
static pid_t killed_run(char *made, size_t size, bool stay)
{
        int p[2];
        pid_t pid;

        if (pipe(p) < 0)
                return -1;
        pid = fork();
        if (pid == 0) {
                struct run_claim c = {0};
                struct bento_err err = {0};
                cleanup_close int fd = runs_fd();
                char *a = NULL, *b = NULL;

                close(p[0]);
                if (run_claim_take_at(&c, fd, &err) < 0 ||
                    run_claim_mkdir(&c, area, "bento-run-", &a, &err) < 0 ||
                    run_claim_mkdir(&c, area, "bento-", &b, &err) < 0)
                        _exit(1);
                write_file(at(a, "state.json"), "{}");
                mkdir(at(a, "rootfs"), 0755);
                dprintf(p[1], "%s\n%s\n", a, b);
                close(p[1]);
                if (stay)
                        pause();
                _exit(0);
        }
        close(p[1]);
        memset(made, 0, size);
        if (read(p[0], made, size - 1) <= 0)
                made[0] = '\0';
        close(p[0]);
        return pid;
}

TEST(a_killed_run_s_directories_go_with_the_next_sweep)
{
        char made[1024], *a, *b;
        pid_t pid;
        int status;

        ASSERT_OK(fresh());
        pid = killed_run(made, sizeof(made), false);
        ASSERT_TRUE(pid > 0);
        ASSERT_TRUE(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
                    WEXITSTATUS(status) == 0);
        a = strtok(made, "\n");
        b = strtok(NULL, "\n");
        ASSERT_TRUE(a && b);
        ASSERT_TRUE(strncmp(a, area, strlen(area)) == 0);
        ASSERT_TRUE(exists(at(a, "state.json")) && exists(b));
        ASSERT_EQ(count_claims(), 1);
        {
                cleanup_close int fd = runs_fd();

                run_claims_sweep(fd);
        }
        ASSERT_TRUE(!exists(a));
        ASSERT_TRUE(!exists(b));
        ASSERT_EQ(count_claims(), 0);
}

TEST(a_live_run_s_claim_is_left_alone)
{
        char made[1024], *a;
        bool kept;
        pid_t pid;
        int status;

        ASSERT_OK(fresh());
        pid = killed_run(made, sizeof(made), true);
        ASSERT_TRUE(pid > 0);
        a = strtok(made, "\n");
        {
                cleanup_close int fd = runs_fd();

                run_claims_sweep(fd);
        }
        kept = a && exists(at(a, "state.json")) && count_claims() == 1;
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        ASSERT_TRUE(kept);
        {
                cleanup_close int fd = runs_fd();

                run_claims_sweep(fd);
        }
        ASSERT_TRUE(!exists(a));
        ASSERT_EQ(count_claims(), 0);
}

TEST(a_run_s_own_claim_goes_after_its_directories)
{
        struct run_claim c = {0};
        struct bento_err err = {0};
        cleanup_close int fd = -1;
        cleanup_free char *a = NULL;
        char text[1024] = "", want[600], id[64];
        int cfd;

        ASSERT_OK(fresh());
        fd = runs_fd();
        ASSERT_OK(run_claim_take_at(&c, fd, &err));
        ASSERT_OK(run_claim_mkdir(&c, area, "bento-run-", &a, &err));
        ASSERT_TRUE(exists(a));
        /* its path before, its identity after: what the sweep reads */
        cfd = run_claim_fd(&c);
        ASSERT_TRUE(cfd >= 0 && pread(cfd, text, sizeof(text) - 1, 0) > 0);
        ident_of(a, id, sizeof(id));
        snprintf(want, sizeof(want), "bento-run-claim 1\ndir %s\nident %s\n", a, id);
        ASSERT_STREQ(text, want);
        /* the read-only copy holds the claim on its own */
        {
                int ro = run_claim_reader(&c, 10);

                ASSERT_TRUE(ro >= 10);
                ASSERT_TRUE((fcntl(ro, F_GETFL) & O_ACCMODE) == O_RDONLY);
                ASSERT_TRUE(write(ro, "x", 1) < 0);
                close(ro);
        }
        rmdir(a);
        run_claim_drop(&c);
        ASSERT_EQ(count_claims(), 0);
        run_claim_drop(&c); /* again: nothing */
}

/* A claim written by hand, as an attacker with write access would, left
 * unheld. */
static void forged(const char *name, const char *text)
{
        write_file(at(runs, name), text);
}

TEST(a_claim_is_read_as_hostile)
{
        char text[2048], id[64], victim[256], named[256], wrong[256], link[256], full[256],
            empty[256];
        cleanup_close int fd = -1;

        ASSERT_OK(fresh());
        /* a directory with another name, and its contents */
        snprintf(victim, sizeof(victim), "%s/victim", area);
        ASSERT_OK(mkdir(victim, 0700));
        write_file(at(victim, "keep"), "x");
        /* a bento-named directory whose identity is not the one recorded */
        snprintf(wrong, sizeof(wrong), "%s/bento-run-Wrong1", area);
        ASSERT_OK(mkdir(wrong, 0700));
        write_file(at(wrong, "keep"), "x");
        /* a bento-named directory reached through a symlink */
        snprintf(named, sizeof(named), "%s/real", area);
        ASSERT_OK(mkdir(named, 0700));
        ASSERT_OK(mkdir(at(named, "bento-Linked"), 0700));
        write_file(at(named, "bento-Linked/keep"), "x");
        snprintf(link, sizeof(link), "%s/via", area);
        ASSERT_OK(symlink(named, link));
        /* bento-named, no identity: removed only when empty */
        snprintf(full, sizeof(full), "%s/bento-NoId11", area);
        ASSERT_OK(mkdir(full, 0700));
        write_file(at(full, "keep"), "x");
        snprintf(empty, sizeof(empty), "%s/bento-NoId22", area);
        ASSERT_OK(mkdir(empty, 0700));
        ident_of(victim, id, sizeof(id));
        snprintf(text, sizeof(text), "bento-run-claim 1\ndir %s\nident %s\n", victim, id);
        forged("1-victim.claim", text);
        snprintf(text, sizeof(text), "bento-run-claim 1\ndir %s\nident 1:1\n", wrong);
        forged("1-wrong.claim", text);
        snprintf(text, sizeof(text), "bento-run-claim 1\ndir %s/bento-Linked\n", link);
        forged("1-link.claim", text);
        /* after a line that is not a claim's, nothing more is read */
        snprintf(text, sizeof(text), "bento-run-claim 1\ndir %s\nident %s\ndir %s\n", victim, id,
                 empty);
        forged("1-stops.claim", text);
        {
                cleanup_close int first = runs_fd();

                run_claims_sweep(first);
        }
        ASSERT_TRUE(exists(empty) && exists(at(victim, "keep")));
        ASSERT_TRUE(!exists(at(runs, "1-stops.claim")));
        snprintf(text, sizeof(text), "bento-run-claim 1\ndir %s\ndir %s\n", full, empty);
        forged("1-noid.claim", text);
        /* a symlinked directory inside a claimed one: emptied, not followed */
        {
                char own[256], idown[64];

                snprintf(own, sizeof(own), "%s/bento-run-Own111", area);
                ASSERT_OK(mkdir(own, 0700));
                ASSERT_OK(symlink(victim, at(own, "escape")));
                ident_of(own, idown, sizeof(idown));
                snprintf(text, sizeof(text), "bento-run-claim 1\ndir %s\nident %s\n", own, idown);
                forged("2-own.claim", text);
        }
        /* not claims: a symlink to one, a torn header, and a stray file */
        ASSERT_OK(symlink(at(runs, "2-own.claim"), at(runs, "3-link.claim")));
        forged("4-torn.claim", "bento-run-cl");
        forged("notaclaim", "bento-run-claim 1\n");
        fd = runs_fd();
        run_claims_sweep(fd);
        ASSERT_TRUE(exists(at(victim, "keep")));
        ASSERT_TRUE(exists(at(wrong, "keep")));
        ASSERT_TRUE(exists(at(named, "bento-Linked/keep")));
        ASSERT_TRUE(exists(at(full, "keep")));
        ASSERT_TRUE(!exists(empty));
        ASSERT_TRUE(!exists(at(area, "bento-run-Own111")));
        ASSERT_TRUE(exists(at(victim, "keep")));
        ASSERT_TRUE(!exists(at(runs, "1-victim.claim")) && !exists(at(runs, "1-wrong.claim")) &&
                    !exists(at(runs, "1-link.claim")) && !exists(at(runs, "1-noid.claim")));
        ASSERT_TRUE(!exists(at(runs, "2-own.claim")));
        ASSERT_TRUE(!exists(at(runs, "4-torn.claim")));
        ASSERT_TRUE(exists(at(runs, "notaclaim")));
        /* the dangling symlink is left: a sweep never opens one */
        ASSERT_TRUE(exists(at(runs, "3-link.claim")));
}

__attribute__((constructor)) static void make_top(void)
{
        if (!mkdtemp(top)) {
                printf("Bail out! mkdtemp: %s\n", strerror(errno));
                exit(1);
        }
        snprintf(runs, sizeof(runs), "%s/runs", top);
        snprintf(area, sizeof(area), "%s/area", top);
}

__attribute__((destructor)) static void remove_top(void)
{
        char cmd[96];

        snprintf(cmd, sizeof(cmd), "rm -rf %s", top);
        if (system(cmd) != 0)
                printf("# could not remove %s\n", top);
}

TAP_MAIN()
