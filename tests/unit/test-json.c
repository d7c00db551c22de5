/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the hostile-input JSON layer (bundle/json.c), the path
 * reader (jsonr.c), the writer (jsonw.c) and the tree constructors
 * (json-build.c): what is accepted, what is refused and with which path,
 * and that emitting a parsed tree reproduces it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "json.h"
#include "jsonr.h"
#include "jsonw.h"
#include "tap.h"

static struct bento_err err;

static int parse(const char *text, struct bento_json **ret)
{
        bento_err_clear(&err);
        return bento_json_parse(text, strlen(text), 1 << 20, ret, &err);
}

/* Parse must fail, with a message containing `want`. */
static int refuses(const char *text, const char *want)
{
        struct bento_json *v = NULL;

        if (parse(text, &v) >= 0) {
                bento_json_free(v);
                printf("#   accepted: %s\n", text);
                return 0;
        }
        if (!strstr(err.msg, want)) {
                printf("#   message \"%s\" lacks \"%s\"\n", err.msg, want);
                return 0;
        }
        return 1;
}

static char *compact(const struct bento_json *v)
{
        cleanup_jsonw struct bento_jsonw w = {0};
        char *buf = NULL;
        size_t len = 0;

        if (bento_jsonw_init(&w, false, &err) < 0)
                return NULL;
        bento_jsonw_tree(&w, v);
        if (bento_jsonw_finish(&w, &buf, &len) < 0)
                return NULL;
        return buf;
}

TEST(parses_all_types)
{
        cleanup_bento_json struct bento_json *v = NULL;
        const struct bento_json *a;

        ASSERT_OK(
            parse("{\"n\":null,\"t\":true,\"f\":false,\"s\":\"h\\u00e9\\n\",\"a\":[1,{}]}", &v));
        ASSERT_EQ(v->type, BENTO_JSON_OBJECT);
        ASSERT_EQ(v->u.object.n, 5);
        ASSERT_STREQ(v->u.object.keys[0], "n"); /* document order kept */
        ASSERT_EQ(bento_json_get(v, "n")->type, BENTO_JSON_NULL);
        ASSERT_EQ(bento_json_get(v, "t")->u.boolean, 1);
        ASSERT_EQ(bento_json_get(v, "f")->u.boolean, 0);
        ASSERT_STREQ(bento_json_get(v, "s")->u.string.s, "h\xc3\xa9\n");
        ASSERT_EQ(bento_json_get(v, "s")->u.string.len, 4);
        a = bento_json_get(v, "a");
        ASSERT_EQ(a->type, BENTO_JSON_ARRAY);
        ASSERT_EQ(a->u.array.n, 2);
        ASSERT_EQ(a->u.array.items[1]->type, BENTO_JSON_OBJECT);
        ASSERT_TRUE(bento_json_get(v, "missing") == NULL);
        ASSERT_TRUE(bento_json_get(a, "n") == NULL); /* not an object */
}

TEST(classifies_numbers)
{
        cleanup_bento_json struct bento_json *v = NULL;
        const struct bento_json *const *n;

        ASSERT_OK(parse("[0, -0, 42, -7, 18446744073709551615, 18446744073709551616,"
                        " -9223372036854775808, 1.5, 1e3, -2.5]",
                        &v));
        n = (const struct bento_json *const *) v->u.array.items;
        ASSERT_TRUE(n[0]->u.number.is_int && n[0]->u.number.fits_u64 && n[0]->u.number.u == 0);
        ASSERT_TRUE(!n[1]->u.number.is_neg && n[1]->u.number.fits_u64); /* -0 is zero */
        ASSERT_STREQ(n[1]->u.number.text, "-0");
        ASSERT_EQ(n[2]->u.number.u, 42);
        ASSERT_TRUE(n[3]->u.number.is_neg && !n[3]->u.number.fits_u64);
        ASSERT_EQ(n[3]->u.number.i, -7);
        ASSERT_TRUE(n[4]->u.number.fits_u64 && n[4]->u.number.u == UINT64_MAX);
        ASSERT_TRUE(!n[4]->u.number.fits_i64);
        ASSERT_TRUE(!n[5]->u.number.fits_u64 && !n[5]->u.number.fits_i64);
        ASSERT_TRUE(n[6]->u.number.fits_i64 && n[6]->u.number.i == INT64_MIN);
        ASSERT_TRUE(!n[7]->u.number.is_int && n[7]->u.number.d == 1.5);
        ASSERT_TRUE(!n[8]->u.number.is_int); /* an exponent is not an integer literal */
        ASSERT_TRUE(n[9]->u.number.is_neg);
}

TEST(refuses_size_over_cap)
{
        struct bento_json *v = NULL;

        ASSERT_EQ(bento_json_parse("[1]", 3, 2, &v, &err), -EFBIG);
        ASSERT_CONTAINS(err.msg, "the document is 3 bytes; the limit is 2 bytes");
        ASSERT_OK(bento_json_parse("[1]", 3, 3, &v, &err));
        bento_json_free(v);
}

TEST(refuses_raw_nul)
{
        struct bento_json *v = NULL;

        ASSERT_EQ(bento_json_parse("{\"a\":\"x\0y\"}", 11, 100, &v, &err), -EINVAL);
        ASSERT_CONTAINS(err.msg, "NUL byte at offset 7");
        /* data need not be NUL-terminated: only len counts */
        ASSERT_OK(bento_json_parse("[1]xxx", 3, 100, &v, &err));
        bento_json_free(v);
}

TEST(refuses_escaped_nul_with_path)
{
        ASSERT_TRUE(refuses("{\"a\":{\"b\":[\"ok\",\"x\\u0000y\"]}}",
                            "a.b[1]: string contains a NUL character"));
        ASSERT_TRUE(refuses("{\"a\":{\"k\\u0000\":1}}", "a: object key contains a NUL character"));
}

TEST(refuses_duplicate_keys_with_path)
{
        char big[2048];
        size_t o = 0;

        ASSERT_TRUE(refuses("{\"a\":1,\"a\":2}", "duplicate key \"a\""));
        ASSERT_TRUE(refuses("{\"x\":[{},{\"y\":{\"k\":1,\"j\":2,\"k\":3}}]}",
                            "x[1].y: duplicate key \"k\""));
        ASSERT_TRUE(refuses("{\"linux\":{\"sysctl\":{\"net.a\":\"1\",\"net.a\":\"2\"}}}",
                            "linux.sysctl: duplicate key \"net.a\""));
        /* more than 16 keys takes the sorting path */
        o += (size_t) snprintf(big + o, sizeof(big) - o, "{\"o\":{");
        for (int i = 0; i < 40; i++)
                o += (size_t) snprintf(big + o, sizeof(big) - o, "\"k%d\":%d,", i, i);
        snprintf(big + o, sizeof(big) - o, "\"k17\":0}}");
        ASSERT_TRUE(refuses(big, "o: duplicate key \"k17\""));
}

TEST(nesting_cap)
{
        char doc[200];
        struct bento_json *v = NULL;
        int d;

        for (d = 0; d < BENTO_JSON_MAX_DEPTH; d++)
                doc[d] = '[';
        for (int i = 0; i < BENTO_JSON_MAX_DEPTH; i++)
                doc[d++] = ']';
        doc[d] = '\0';
        ASSERT_OK(parse(doc, &v));
        v = bento_json_free(v);
        memmove(doc + 1, doc, strlen(doc) + 1);
        doc[0] = '[';
        strcat(doc, "]");
        ASSERT_TRUE(refuses(doc, "nested deeper than 64 levels"));
        ASSERT_TRUE(refuses(
            "{\"a\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[", "a[0][0]"));
}

TEST(refuses_trailing_garbage)
{
        ASSERT_TRUE(refuses("{} x", "invalid JSON"));
        ASSERT_TRUE(refuses("1 2", "trailing garbage"));
        ASSERT_TRUE(refuses("{}{}", "invalid JSON"));
}

TEST(refuses_bad_utf8)
{
        ASSERT_TRUE(refuses("[\"\xff\"]", "invalid JSON at byte"));
        /* overlong NUL, an encoded surrogate, a code point past U+10FFFF:
         * yajl lets these through, the builder does not */
        ASSERT_TRUE(refuses("{\"s\":\"\xc0\x80\"}", "s: string is not valid UTF-8"));
        ASSERT_TRUE(refuses("{\"s\":\"\xed\xa0\x80\"}", "s: string is not valid UTF-8"));
        ASSERT_TRUE(refuses("{\"s\":\"\xf4\x90\x80\x80\"}", "s: string is not valid UTF-8"));
        ASSERT_TRUE(refuses("{\"s\":[\"\\udc00\"]}", "s[0]: string is not valid UTF-8"));
        ASSERT_TRUE(refuses("{\"\xc0\x80\":1}", "object key is not valid UTF-8"));
}

TEST(refuses_comments_and_garbage)
{
        ASSERT_TRUE(refuses("{/* c */}", "invalid JSON"));
        ASSERT_TRUE(refuses("", "document is empty"));
        ASSERT_TRUE(refuses(" \n\t", "document is empty"));
        ASSERT_TRUE(refuses("{\"a\":}", "invalid JSON at byte"));
        ASSERT_TRUE(refuses("[1,]", "invalid JSON"));
        ASSERT_TRUE(refuses("{", "invalid JSON"));
        ASSERT_TRUE(refuses("nul", "invalid JSON"));
}

TEST(emit_reproduces_document)
{
        const char *doc = "{\"a\":[1,-0,1.50,1e400,18446744073709551616],\"b\":{\"c\":null,"
                          "\"d\":true},\"e\":\"tab\\there \\u00e9 \\\"q\\\"\",\"f\":[],\"g\":{}}";
        cleanup_bento_json struct bento_json *v = NULL;
        cleanup_bento_json struct bento_json *copy = NULL;
        cleanup_free char *out = NULL;
        cleanup_free char *out2 = NULL;

        ASSERT_OK(parse(doc, &v));
        out = compact(v);
        ASSERT_STREQ(out, "{\"a\":[1,-0,1.50,1e400,18446744073709551616],\"b\":{\"c\":null,"
                          "\"d\":true},\"e\":\"tab\\there \xc3\xa9 \\\"q\\\"\",\"f\":[],\"g\":{}}");
        copy = bento_json_dup(v);
        ASSERT_TRUE(copy != NULL);
        out2 = compact(copy);
        ASSERT_STREQ(out, out2);
}

TEST(pretty_output_folds_empty_containers)
{
        cleanup_bento_json struct bento_json *v = NULL;
        cleanup_jsonw struct bento_jsonw w = {0};
        cleanup_free char *out = NULL;
        size_t len = 0;

        ASSERT_OK(parse("{\"a\":[],\"b\":{},\"c\":[{}],\"d\":\"[\\n\\n]\"}", &v));
        ASSERT_OK(bento_jsonw_init(&w, true, &err));
        bento_jsonw_tree(&w, v);
        ASSERT_OK(bento_jsonw_finish(&w, &out, &len));
        ASSERT_STREQ(out, "{\n  \"a\": [],\n  \"b\": {},\n  \"c\": [\n    {}\n  ],\n"
                          "  \"d\": \"[\\n\\n]\"\n}\n");
        ASSERT_EQ(len, strlen(out));
}

TEST(writer_is_sticky)
{
        cleanup_jsonw struct bento_jsonw w = {0};
        char *out = NULL;
        size_t len = 0;

        ASSERT_OK(bento_jsonw_init(&w, false, &err));
        bento_jsonw_open_object(&w);
        bento_jsonw_kstring(&w, "bad", "\xff");
        bento_jsonw_kstring(&w, "missing", NULL); /* must not replace the first error */
        bento_jsonw_close_object(&w);
        ASSERT_EQ(bento_jsonw_finish(&w, &out, &len), -EILSEQ);
        ASSERT_CONTAINS(err.msg, "not valid UTF-8");
        ASSERT_TRUE(out == NULL);
}

/* bento_jsonw_string() writes a plain string through yajl_gen_number(), quoted; every other
 * string, and every string of a tree, goes through yajl_gen_string().  The two must give the
 * same bytes wherever the string stands, pretty and compact. */
static const char *const writer_strings[] = {
    "/plain/path",
    "",
    "with \"quote\"",
    "back\\slash",
    "sol/idus",
    "tab\there",
    "nl\n",
    "\x01"
    "ctl",
    "del\x7f",
    "utf8 \xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80",
    " space ",
    "~!@#$%^&*()_+{}|:<>?`-=[];',.",
};

static char *write_both(bool pretty, bool by_tree)
{
        enum { N = sizeof(writer_strings) / sizeof(*writer_strings) };
        cleanup_bento_json struct bento_json *o = bento_json_new_object();
        cleanup_jsonw struct bento_jsonw w = {0};
        struct bento_json *arr = bento_json_new_array(), *empty = bento_json_new_array();
        char *buf = NULL, key[8];
        size_t len = 0;

        if (!o || !arr || !empty || bento_jsonw_init(&w, pretty, &err) < 0)
                return NULL;
        for (size_t i = 0; i < N; i++)
                if (bento_json_array_append(arr, bento_json_new_string(writer_strings[i])) < 0)
                        return NULL;
        if (bento_json_object_set(o, "list", arr) < 0 ||
            bento_json_object_set(o, "none", empty) < 0)
                return NULL;
        for (size_t i = 0; i < N; i++) {
                snprintf(key, sizeof(key), "k%zu", i);
                if (bento_json_object_set(o, key, bento_json_new_string(writer_strings[i])) < 0)
                        return NULL;
        }
        if (by_tree) {
                bento_jsonw_tree(&w, o);
        } else {
                bento_jsonw_open_object(&w);
                bento_jsonw_key(&w, "list");
                bento_jsonw_strv(&w, (char *const *) writer_strings, N);
                bento_jsonw_key(&w, "none");
                bento_jsonw_strv(&w, NULL, 0);
                for (size_t i = 0; i < N; i++) {
                        snprintf(key, sizeof(key), "k%zu", i);
                        bento_jsonw_string(&w, key); /* a string where a key goes */
                        bento_jsonw_string(&w, writer_strings[i]);
                }
                bento_jsonw_close_object(&w);
        }
        if (bento_jsonw_finish(&w, &buf, &len) < 0 || strlen(buf) != len)
                return NULL;
        return buf;
}

TEST(plain_strings_are_written_as_yajl_writes_them)
{
        for (int pretty = 0; pretty < 2; pretty++) {
                cleanup_free char *direct = write_both(pretty, false);
                cleanup_free char *tree = write_both(pretty, true);

                ASSERT_TRUE(direct && tree);
                ASSERT_STREQ(direct, tree);
        }
        {
                cleanup_free char *compact_doc = write_both(false, false);

                ASSERT_TRUE(strstr(compact_doc, "\"list\":[\"/plain/path\",\"\",\"with "
                                                "\\\"quote\\\"\",\"back\\\\slash\"") != NULL);
                ASSERT_TRUE(strstr(compact_doc, "\"none\":[]") != NULL);
        }
}

TEST(constructors_build_emittable_trees)
{
        cleanup_bento_json struct bento_json *o = bento_json_new_object();
        cleanup_bento_json struct bento_json *back = NULL;
        struct bento_json *arr = bento_json_new_array();
        cleanup_free char *out = NULL;

        ASSERT_TRUE(o && arr);
        ASSERT_OK(bento_json_object_set(o, "limit", bento_json_new_int(-5)));
        ASSERT_OK(bento_json_object_set(o, "big", bento_json_new_uint(UINT64_MAX)));
        ASSERT_OK(bento_json_array_append(arr, bento_json_new_string("x")));
        ASSERT_OK(bento_json_array_append(arr, bento_json_new_null()));
        ASSERT_OK(bento_json_array_append(arr, bento_json_new_bool(true)));
        ASSERT_OK(bento_json_object_set(o, "list", arr));
        ASSERT_OK(bento_json_object_set(o, "limit", bento_json_new_int(512))); /* replaces */
        ASSERT_EQ(bento_json_object_set(o, "bad", bento_json_new_string("\xc0\x80")), -ENOMEM);
        ASSERT_EQ(bento_json_array_append(o, bento_json_new_null()), -EINVAL);
        ASSERT_EQ(bento_json_object_set(o, "\xff", bento_json_new_null()), -EINVAL);
        out = compact(o);
        ASSERT_STREQ(out,
                     "{\"limit\":512,\"big\":18446744073709551615,\"list\":[\"x\",null,true]}");
        ASSERT_OK(parse(out, &back));
        ASSERT_EQ(bento_json_get(back, "big")->u.number.u, UINT64_MAX);
}

TEST(reader_paths_and_messages)
{
        cleanup_bento_json struct bento_json *v = NULL;
        struct bento_jsonr r;
        uint64_t u = 0;
        int64_t i = 0;
        char *s = NULL;

        ASSERT_OK(
            parse("{\"a.b\":{\"x\":\"s\",\"n\":-1,\"f\":1.5,\"q\\\"k\":true,\"z\":null}}", &v));
        bento_jsonr_init(&r, &err);
        bento_jsonr_push_key(&r, "a.b");
        ASSERT_EQ(bento_jsonr_uint(&r, bento_json_get(v, "a.b"), "x", true, UINT32_MAX, &u),
                  -EINVAL);
        ASSERT_STREQ(err.msg, "[\"a.b\"].x: expected an unsigned 32-bit integer, got a string");
        ASSERT_EQ(bento_jsonr_uint(&r, bento_json_get(v, "a.b"), "n", true, UINT32_MAX, &u),
                  -EINVAL);
        ASSERT_STREQ(err.msg, "[\"a.b\"].n: expected an unsigned 32-bit integer, got -1");
        ASSERT_EQ(
            bento_jsonr_int(&r, bento_json_get(v, "a.b"), "f", true, INT32_MIN, INT32_MAX, &i),
            -EINVAL);
        ASSERT_STREQ(err.msg, "[\"a.b\"].f: expected a 32-bit integer, got 1.5");
        ASSERT_EQ(bento_jsonr_string(&r, bento_json_get(v, "a.b"), "q\"k", true, &s), -EINVAL);
        ASSERT_STREQ(err.msg, "[\"a.b\"][\"q\\\"k\"]: expected a string, got a boolean");
        /* null reads as absent; absent and required is an error */
        ASSERT_EQ(bento_jsonr_string(&r, bento_json_get(v, "a.b"), "z", false, &s), 0);
        ASSERT_EQ(bento_jsonr_string(&r, bento_json_get(v, "a.b"), "z", true, &s), -EINVAL);
        ASSERT_STREQ(err.msg, "[\"a.b\"].z: required property is missing");
        ASSERT_TRUE(s == NULL);
}

TEST(reader_path_truncates)
{
        struct bento_jsonr r;
        char key[400];

        memset(key, 'k', sizeof(key) - 1);
        key[sizeof(key) - 1] = '\0';
        bento_jsonr_init(&r, &err);
        for (int i = 0; i < 20; i++)
                bento_jsonr_push_key(&r, key);
        ASSERT_TRUE(strlen(r.path) < BENTO_JSONR_PATH_MAX);
        ASSERT_CONTAINS(r.path, "...");
        bento_jsonr_fail(&r, "boom");
        ASSERT_CONTAINS(err.msg, "boom");
}

TAP_MAIN()
