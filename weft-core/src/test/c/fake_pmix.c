/*
 * A stand-in for libpmix, for testing Weft's PMIx bootstrap (FFM plumbing: structures, value
 * decoding, memory ownership, deadlines) where no PMIx resource manager is installed. It follows
 * the PMIx 2-5 ABI for the calls Weft makes; the "server" is a directory shared by the processes
 * of one fake job: FAKE_PMIX_DIR (store and fence files), FAKE_PMIX_SIZE (job size), PMIX_RANK.
 * Not a PMIx implementation: one namespace, byte objects only, fences by polling files.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

typedef struct { char nspace[256]; uint32_t rank; } proc_t;
typedef struct { uint16_t type; union { uint8_t b; uint16_t u16; uint32_t u32; uint64_t u64;
    struct { char *bytes; size_t size; } bo; } data; } value_t;
typedef struct { char key[512]; uint32_t flags; value_t value; } info_t;

#define T_BOOL 1
#define T_UINT16 13
#define T_UINT32 14
#define T_BO 27
#define ERR_NOT_FOUND (-46)
#define ERR_BAD (-27)
#define WILDCARD 0xFFFFFFFEu

static uint32_t my_rank;
static int job_size;
static const char *dir;
static int fence_gen;
static struct { char key[512]; char *bytes; size_t size; } pending[64];
static int npending;

static void path_of(char *out, size_t n, const char *what, uint32_t rank, const char *key) {
    snprintf(out, n, "%s/%s.%u.%s", dir, what, rank, key);
}

int PMIx_Init(proc_t *proc, info_t *info, size_t ninfo) {
    (void) info; (void) ninfo;
    const char *r = getenv("PMIX_RANK"), *s = getenv("FAKE_PMIX_SIZE");
    dir = getenv("FAKE_PMIX_DIR");
    if (!r || !s || !dir) return ERR_BAD;
    my_rank = (uint32_t) atoi(r);
    job_size = atoi(s);
    memset(proc, 0, sizeof(*proc));
    strcpy(proc->nspace, "fake-ns");
    proc->rank = my_rank;
    return 0;
}

int PMIx_Finalize(const info_t *info, size_t ninfo) { (void) info; (void) ninfo; return 0; }

int PMIx_Put(uint8_t scope, const char *key, value_t *val) {
    if (scope != 3 || val->type != T_BO || npending == 64) return ERR_BAD;
    strncpy(pending[npending].key, key, 511);
    pending[npending].bytes = malloc(val->data.bo.size + 1); /* PMIx copies: the caller frees its own */
    memcpy(pending[npending].bytes, val->data.bo.bytes, val->data.bo.size);
    pending[npending].size = val->data.bo.size;
    npending++;
    return 0;
}

int PMIx_Commit(void) {
    char p[1024], tmp[1100];
    for (int i = 0; i < npending; i++) {
        path_of(p, sizeof p, "kv", my_rank, pending[i].key);
        snprintf(tmp, sizeof tmp, "%s.tmp", p);
        FILE *f = fopen(tmp, "wb");
        if (!f) return ERR_BAD;
        fwrite(pending[i].bytes, 1, pending[i].size, f);
        fclose(f);
        rename(tmp, p);
        free(pending[i].bytes);
    }
    npending = 0;
    return 0;
}

int PMIx_Fence(const proc_t *procs, size_t nprocs, const info_t *info, size_t ninfo) {
    /* Weft asks for the whole namespace, with data collection. */
    if (nprocs != 1 || procs[0].rank != WILDCARD || strcmp(procs[0].nspace, "fake-ns") != 0) return ERR_BAD;
    if (ninfo != 1 || strcmp(info[0].key, "pmix.collect") != 0 || info[0].value.type != T_BOOL
        || info[0].value.data.b != 1) return ERR_BAD;
    char p[1024], gen[32];
    snprintf(gen, sizeof gen, "%d", fence_gen++);
    path_of(p, sizeof p, "fence", my_rank, gen);
    FILE *f = fopen(p, "w");
    if (!f) return ERR_BAD;
    fclose(f);
    for (;;) { /* no deadline here: Weft's caller has one */
        int arrived = 0;
        struct stat st;
        for (int r = 0; r < job_size; r++) {
            path_of(p, sizeof p, "fence", (uint32_t) r, gen);
            arrived += stat(p, &st) == 0;
        }
        if (arrived == job_size) return 0;
        usleep(2000);
    }
}

static value_t *number(uint16_t type, uint64_t v) {
    value_t *val = calloc(1, sizeof *val);
    val->type = type;
    if (type == T_UINT16) val->data.u16 = (uint16_t) v; else val->data.u32 = (uint32_t) v;
    return val;
}

int PMIx_Get(const proc_t *proc, const char *key, const info_t *info, size_t ninfo, value_t **val) {
    (void) info; (void) ninfo;
    if (strcmp(key, "pmix.job.size") == 0 && proc->rank == WILDCARD) { *val = number(T_UINT32, job_size); return 0; }
    if (strcmp(key, "pmix.local.size") == 0 && proc->rank == WILDCARD) { *val = number(T_UINT32, job_size); return 0; }
    if (strcmp(key, "pmix.lrank") == 0) { *val = number(T_UINT16, proc->rank); return 0; }
    if (strncmp(key, "pmix.", 5) == 0) return ERR_NOT_FOUND; /* e.g. pmix.nodeid: Weft falls back */
    char p[1024];
    path_of(p, sizeof p, "kv", proc->rank, key);
    FILE *f = fopen(p, "rb");
    if (!f) return ERR_NOT_FOUND;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    value_t *v = calloc(1, sizeof *v);
    v->type = T_BO;
    v->data.bo.bytes = malloc(n > 0 ? (size_t) n : 1);
    v->data.bo.size = fread(v->data.bo.bytes, 1, (size_t) n, f);
    fclose(f);
    *val = v;
    return 0;
}

/* Records the abort in FAKE_PMIX_DIR/abort.RANK ("STATUS MESSAGE"); the real server would kill the job. */
int PMIx_Abort(int status, const char msg[], proc_t procs[], size_t nprocs) {
    if (procs != NULL || nprocs != 0) return ERR_BAD; /* Weft aborts the whole namespace */
    char p[1024];
    snprintf(p, sizeof p, "%s/abort.%u", dir, my_rank);
    FILE *f = fopen(p, "w");
    if (!f) return ERR_BAD;
    fprintf(f, "%d %s", status, msg);
    fclose(f);
    return 0;
}

const char *PMIx_Error_string(int status) {
    return status == ERR_NOT_FOUND ? "NOT-FOUND" : status == ERR_BAD ? "BAD-PARAM" : "UNKNOWN";
}
