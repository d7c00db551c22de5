/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Cleanup helpers for libyaml's parser and event (cleanup_yaml_parser /
 * cleanup_yaml_event, in the manner of bundle/cleanup.h).  They live here rather than
 * in bundle/cleanup.h because libbento does not link libyaml.
 */
#ifndef BENTO_YAML_CLEANUP_H
#define BENTO_YAML_CLEANUP_H

#include <yaml.h>

static inline void cleanup_yaml_parser_fn(yaml_parser_t *p)
{
        yaml_parser_delete(p);
}

/* yaml_event_delete() zeroes the event, and a zeroed event holds nothing, so
 * this is safe on events that were never filled. */
static inline void cleanup_yaml_event_fn(yaml_event_t *e)
{
        yaml_event_delete(e);
}

#define cleanup_yaml_parser __attribute__((cleanup(cleanup_yaml_parser_fn)))
#define cleanup_yaml_event  __attribute__((cleanup(cleanup_yaml_event_fn)))

#endif
