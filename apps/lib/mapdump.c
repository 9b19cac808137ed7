/* mapdump: a registry's maps as bpftool-style JSON (see mapdump.h). Entries
 * are walked with get_next_key from NULL, as bpftool's do_dump does, so the
 * order is the map's own (index order for arrays, bucket order for hashes). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bpfvm.h"
#include "mapdump.h"

/* bpftool's names (libbpf_bpf_map_type_str). */
static const char *map_type_name(uint32_t t)
{
	switch (t) {
	case BPFVM_MAP_HASH:
		return "hash";
	case BPFVM_MAP_ARRAY:
		return "array";
	case BPFVM_MAP_PROG_ARRAY:
		return "prog_array";
	case BPFVM_MAP_PERF_EVENT_ARRAY:
		return "perf_event_array";
	case BPFVM_MAP_PERCPU_HASH:
		return "percpu_hash";
	case BPFVM_MAP_PERCPU_ARRAY:
		return "percpu_array";
	case BPFVM_MAP_LRU_HASH:
		return "lru_hash";
	case BPFVM_MAP_SK_STORAGE:
		return "sk_storage";
	case BPFVM_MAP_RINGBUF:
		return "ringbuf";
	default:
		return "unknown";
	}
}

static void json_name(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void hex_bytes(FILE *f, const uint8_t *p, uint32_t n)
{
	fputc('[', f);
	for (uint32_t i = 0; i < n; i++)
		fprintf(f, "%s\"0x%02x\"", i ? "," : "", p[i]);
	fputc(']', f);
}

static bool is_percpu(uint32_t t)
{
	return t == BPFVM_MAP_PERCPU_ARRAY || t == BPFVM_MAP_PERCPU_HASH;
}

/* Maps whose values are not data to show here (records, per-socket values,
 * program handles). */
static bool walkable(uint32_t t)
{
	return t != BPFVM_MAP_RINGBUF && t != BPFVM_MAP_PERF_EVENT_ARRAY &&
	       t != BPFVM_MAP_SK_STORAGE && t != BPFVM_MAP_PROG_ARRAY;
}

static int dump_entries(FILE *f, struct bpfvm_map *map, const struct bpfvm_map_info *in,
			unsigned ncpus)
{
	uint32_t stride = (in->value_size + 7) / 8 * 8;
	uint8_t *key = calloc(1, in->key_size ? in->key_size : 1);
	uint8_t *next = calloc(1, in->key_size ? in->key_size : 1);
	uint8_t *vals = calloc(BPFVM_MAX_CPUS, stride ? stride : 8);
	int rc = 0;
	bool first = true;

	if (!key || !next || !vals) {
		rc = -ENOMEM;
		goto out;
	}
	fputs(",\"entries\":[", f);
	for (const void *k = NULL; walkable(in->type);) {
		rc = bpfvm_map_get_next_key(map, k, next);
		if (rc == -ENOENT) {
			rc = 0;
			break;
		}
		if (rc < 0)
			break;
		memcpy(key, next, in->key_size);
		k = key;
		fprintf(f, "%s{\"key\":", first ? "" : ",");
		first = false;
		hex_bytes(f, key, in->key_size);
		if (is_percpu(in->type)) {
			if (bpfvm_map_lookup_percpu(map, key, vals) < 0) {
				fputs("}", f);
				continue;
			}
			fputs(",\"values\":[", f);
			for (unsigned c = 0; c < ncpus; c++) {
				fprintf(f, "%s{\"cpu\":%u,\"value\":", c ? "," : "", c);
				hex_bytes(f, vals + (size_t)c * stride, in->value_size);
				fputc('}', f);
			}
			fputs("]}", f);
			continue;
		}
		const uint8_t *v = bpfvm_map_lookup(map, key);
		if (v) {
			fputs(",\"value\":", f);
			hex_bytes(f, v, in->value_size);
		}
		fputc('}', f);
	}
	fputc(']', f);
out:
	free(key);
	free(next);
	free(vals);
	return rc;
}

int mapdump_json(FILE *f, struct bpfvm_registry *reg, unsigned ncpus)
{
	uint32_t id = 0;
	int rc = 0;
	bool first = true;

	if (!f || !reg || ncpus < 1 || ncpus > BPFVM_MAX_CPUS)
		return -EINVAL;
	fputc('[', f);
	while (bpfvm_map_get_next_id(reg, id, &id) == 0) {
		struct bpfvm_map *map;
		struct bpfvm_map_info in;
		if (bpfvm_map_get_by_id(reg, id, &map) < 0)
			continue; /* freed since the walk saw it */
		bpfvm_map_info(map, &in);
		fprintf(f, "%s{\"id\":%u,\"type\":\"%s\",\"name\":", first ? "" : ",", in.id,
			map_type_name(in.type));
		first = false;
		json_name(f, in.name);
		fprintf(f, ",\"flags\":%u,\"bytes_key\":%u,\"bytes_value\":%u,\"max_entries\":%u",
			in.map_flags, in.key_size, in.value_size, in.max_entries);
		rc = dump_entries(f, map, &in, ncpus);
		fputc('}', f);
		bpfvm_map_put(map);
		if (rc < 0)
			break;
	}
	fputs("]\n", f);
	return rc;
}
