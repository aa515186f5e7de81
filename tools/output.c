/* results.csv, results.json, timeline.csv, summary.csv. */
#include "output.h"

#include "gpu_side.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


/* Why fd (the directory at path) is not safe to write results into, or
 * NULL: files there must be this user's alone, or another user could put
 * a symlink or a FIFO where a result or a gnuplot script goes. */
static const char *unsafe_dir(int fd, const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (fstat(fd, &st) || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "'%s' is not a directory", path);
        return err;
    }
    if (st.st_uid != geteuid()) {
        snprintf(err, errlen, "output directory '%s' belongs to uid %u, not to you (uid %u): "
                 "its owner could replace what uvas-exp writes there; use a directory of your "
                 "own (-o DIR)", path, (unsigned)st.st_uid, (unsigned)geteuid());
        return err;
    }
    if (st.st_mode & (S_IWGRP | S_IWOTH)) {
        snprintf(err, errlen, "output directory '%s' is writable by %s (mode %04o): they could "
                 "replace what uvas-exp writes there; use a directory of your own (-o DIR), or "
                 "chmod go-w '%s'", path, st.st_mode & S_IWOTH ? "other users" : "its group",
                 (unsigned)(st.st_mode & 07777), path);
        return err;
    }
    return NULL;
}

int output_dir_open(int at, const char *path, const char *name, char *err, size_t errlen)
{
    if (mkdirat(at, name, 0755) && errno != EEXIST) {
        snprintf(err, errlen, "cannot create directory '%s': %s", path, strerror(errno));
        return -1;
    }
    int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        struct stat st;
        if (errno == ELOOP || (errno == ENOTDIR && !fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) &&
                               S_ISLNK(st.st_mode)))
            snprintf(err, errlen, "'%s' is a symbolic link, which uvas-exp does not follow: "
                     "give a directory of your own itself", path);
        else
            snprintf(err, errlen, "cannot open directory '%s': %s", path, strerror(errno));
        return -1;
    }
    if (unsafe_dir(fd, path, err, errlen)) {
        close(fd);
        return -1;
    }
    return fd;
}

int output_mkdir(const char *dir, char *err, size_t errlen)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
        snprintf(err, errlen, "output directory name is too long");
        return -1;
    }
    /* "out/" would follow a symlink "out" despite O_NOFOLLOW. */
    for (size_t n = strlen(path); n > 1 && path[n - 1] == '/'; n--)
        path[n - 1] = '\0';
    for (char *s = path + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(path, 0755) && errno != EEXIST) {
            snprintf(err, errlen, "cannot create directory '%s': %s", path, strerror(errno));
            return -1;
        }
        *s = '/';
    }
    return output_dir_open(AT_FDCWD, dir, path, err, errlen);
}

FILE *output_fopen(int dfd, const char *name, const char *path, char *err, size_t errlen)
{
    /* O_NONBLOCK: a FIFO must not wait for a reader; it is refused below. */
    int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK,
                    0644);
    struct stat st;
    if (fd < 0) {
        if (errno == ELOOP)
            snprintf(err, errlen, "cannot write '%s': it is a symbolic link, which uvas-exp does "
                     "not follow; remove it", path);
        else
            snprintf(err, errlen, "cannot write '%s': %s", path,
                     errno == ENXIO ? "it is a FIFO; remove it" : strerror(errno));
        return NULL;
    }
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "cannot write '%s': not a regular file; remove it", path);
        close(fd);
        return NULL;
    }
    FILE *f = fcntl(fd, F_SETFL, 0) ? NULL : fdopen(fd, "w");
    if (!f) {
        snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
        close(fd);
    }
    return f;
}

/* A CSV field, quoted when it needs to be (RFC 4180). */
static void csv_str(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c == '\t')
            fputs("\\t", f);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static const char *data_name(int d)
{
    return d == EXP_DATA_SAME ? "same" : d == EXP_DATA_DIFFERS ? "differs" : "";
}

static double throughput(const struct exp_result *r)
{
    return r->wall_s > 0 ? (double)r->bytes_touched / r->wall_s : 0;
}

static FILE *open_out(const struct exp_config *cfg, const char *name, char *path, size_t plen,
                      char *err, size_t errlen)
{
    snprintf(path, plen, "%s/%s", cfg->outdir, name);
    return output_fopen(cfg->outfd, name, path, err, errlen);
}

static int close_out(FILE *f, const char *path, char *err, size_t errlen)
{
    int bad = ferror(f);
    if (fclose(f) || bad) {
        snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno ? errno : EIO));
        return -1;
    }
    return 0;
}

/* The per-run columns, in the order of results.csv. */
#define RUN_FIELDS                                                                         \
    "workload,policy,rep,status,error,seed,block_size,buffer_bytes,buffer_blocks,wall_s,"  \
    "bytes_touched,bytes_cpu,bytes_device,throughput_Bps,faults,faults_device,"            \
    "migrations_to_device,migrations_to_host,bytes_to_device,bytes_to_host,evictions,"     \
    "device_blocks_end,device_blocks_max,device_capacity_blocks,samples,checksum,data"

static int write_csv(const struct exp_config *cfg, const struct exp_run *runs,
                     size_t nruns, char *err, size_t errlen)
{
    char path[4200];
    FILE *f = open_out(cfg, "results.csv", path, sizeof path, err, errlen);
    if (!f)
        return -1;
    fprintf(f, "%s\n", RUN_FIELDS);
    for (size_t i = 0; i < nruns; i++) {
        const struct exp_run *x = &runs[i];
        const struct exp_result *r = &x->r;
        csv_str(f, cfg->workloads[x->w]);
        fputc(',', f);
        csv_str(f, cfg->policies[x->p]);
        fprintf(f, ",%u,%s,", x->rep, r->ok ? "ok" : "error");
        csv_str(f, r->ok ? "" : r->error);
        fprintf(f, ",%llu,%llu,%llu,%llu,%.9f,%llu,%llu,%llu,%.1f,%llu,%llu,%llu,%llu,%llu,"
                   "%llu,%llu,%llu,%llu,%llu,%u,0x%016llx,%s\n",
                (unsigned long long)cfg->seed, (unsigned long long)r->block_size,
                (unsigned long long)r->buffer_bytes, (unsigned long long)r->buffer_blocks,
                r->wall_s, (unsigned long long)r->bytes_touched,
                (unsigned long long)r->bytes_cpu, (unsigned long long)r->bytes_device,
                throughput(r), (unsigned long long)r->faults,
                (unsigned long long)r->faults_device,
                (unsigned long long)r->migrations_to_device,
                (unsigned long long)r->migrations_to_host,
                (unsigned long long)r->bytes_to_device, (unsigned long long)r->bytes_to_host,
                (unsigned long long)r->evictions, (unsigned long long)r->device_blocks_end,
                (unsigned long long)r->device_blocks_max,
                (unsigned long long)r->device_capacity_blocks, r->nsamples,
                (unsigned long long)r->checksum, data_name(x->data));
    }
    return close_out(f, path, err, errlen);
}

static int write_timeline(const struct exp_config *cfg, const struct exp_run *runs, size_t nruns, char *err, size_t errlen)
{
    char path[4200];
    FILE *f = open_out(cfg, "timeline.csv", path, sizeof path, err, errlen);
    if (!f)
        return -1;
    fprintf(f, "workload,policy,rep,sample,t_s,phase,host,device,unpopulated,device_tier\n");
    for (size_t i = 0; i < nruns; i++) {
        const struct exp_run *x = &runs[i];
        for (uint32_t k = 0; k < x->r.nsamples; k++) {
            const struct exp_sample *s = &x->samples[k];
            csv_str(f, cfg->workloads[x->w]);
            fputc(',', f);
            csv_str(f, cfg->policies[x->p]);
            fprintf(f, ",%u,%u,%.9f,%u,%u,%u,%u,%u\n", x->rep, k, s->t_s, s->phase, s->host,
                    s->device, s->unpopulated, s->device_tier);
        }
    }
    return close_out(f, path, err, errlen);
}

static int write_summary(const struct exp_config *cfg, const struct exp_cell *cells, char *err, size_t errlen)
{
    char path[4200];
    FILE *f = open_out(cfg, "summary.csv", path, sizeof path, err, errlen);
    if (!f)
        return -1;
    fprintf(f, "workload,policy,runs,ok,error,time_s,throughput_Bps,migrations_to_device,"
               "migrations_to_host,faults,faults_device,evictions,device_blocks_max,"
               "data_differs\n");
    for (size_t w = 0; w < cfg->nworkloads; w++)
        for (size_t p = 0; p < cfg->npolicies; p++) {
            const struct exp_cell *c = &cells[w * cfg->npolicies + p];
            csv_str(f, cfg->workloads[w]);
            fputc(',', f);
            csv_str(f, cfg->policies[p]);
            fprintf(f, ",%u,%u,", c->runs, c->ok);
            csv_str(f, c->error ? c->error : "");
            fprintf(f, ",%.9f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%u\n", c->time_s,
                    c->throughput, c->to_device, c->to_host, c->faults, c->faults_device,
                    c->evictions, c->device_max, c->data_differs);
        }
    return close_out(f, path, err, errlen);
}

static int write_json(const struct exp_config *cfg, const struct exp_run *runs,
                      size_t nruns, const struct exp_cell *cells, char *err, size_t errlen)
{
    char path[4200];
    FILE *f = open_out(cfg, "results.json", path, sizeof path, err, errlen);
    if (!f)
        return -1;
    const char *device = "", *fault = "";
    size_t bs = cfg->block_size; /* 0: the library's default, as the runs found it */
    for (size_t i = 0; i < nruns; i++) {
        if (!device[0] && runs[i].r.device[0]) {
            device = runs[i].r.device;
            fault = runs[i].r.fault;
        }
        if (!bs && runs[i].r.block_size)
            bs = (size_t)runs[i].r.block_size;
    }
    fprintf(f, "{\n  \"tool\": \"uvas-exp\",\n  \"config\": {\n    \"seed\": %llu,\n"
               "    \"repetitions\": %u,\n    \"working_set_bytes\": %zu,\n"
               "    \"block_size\": %zu,\n    \"device_bytes\": %zu,\n    \"workloads\": [",
            (unsigned long long)cfg->seed, cfg->reps, cfg->ws_bytes, bs, cfg->device_bytes);
    for (size_t w = 0; w < cfg->nworkloads; w++) {
        fputs(w ? ", " : "", f);
        json_str(f, cfg->workloads[w]);
    }
    fputs("],\n    \"policies\": [", f);
    for (size_t p = 0; p < cfg->npolicies; p++) {
        fputs(p ? ", " : "", f);
        json_str(f, cfg->policies[p]);
    }
    fputs("],\n    \"trace\": ", f);
    if (cfg->trace_path)
        json_str(f, cfg->trace_path);
    else
        fputs("null", f);
    fputs(",\n    \"device\": ", f);
    json_str(f, device);
    fputs(",\n    \"fault_path\": ", f);
    json_str(f, fault);
    fputs(",\n    \"gpu_side\": ", f);
    json_str(f, gpu_side_name(cfg->gpu_side));
    fputs("\n  },\n  \"runs\": [", f);
    for (size_t i = 0; i < nruns; i++) {
        const struct exp_run *x = &runs[i];
        const struct exp_result *r = &x->r;
        fputs(i ? ",\n    {" : "\n    {", f);
        fputs("\"workload\": ", f);
        json_str(f, cfg->workloads[x->w]);
        fputs(", \"policy\": ", f);
        json_str(f, cfg->policies[x->p]);
        fprintf(f, ", \"rep\": %u, \"status\": \"%s\", \"error\": ", x->rep,
                r->ok ? "ok" : "error");
        if (r->ok)
            fputs("null", f);
        else
            json_str(f, r->error);
        fprintf(f, ",\n     \"block_size\": %llu, \"buffer_bytes\": %llu, \"buffer_blocks\": %llu,"
                   " \"wall_s\": %.9f, \"bytes_touched\": %llu, \"bytes_cpu\": %llu,"
                   " \"bytes_device\": %llu, \"throughput_Bps\": %.1f,\n     \"faults\": %llu,"
                   " \"faults_device\": %llu, \"migrations_to_device\": %llu,"
                   " \"migrations_to_host\": %llu, \"bytes_to_device\": %llu,"
                   " \"bytes_to_host\": %llu, \"evictions\": %llu,\n"
                   "     \"device_blocks_end\": %llu, \"device_blocks_max\": %llu,"
                   " \"device_capacity_blocks\": %llu, \"checksum\": \"0x%016llx\","
                   " \"data\": \"%s\", \"samples_dropped\": %u,\n     \"timeline\": [",
                (unsigned long long)r->block_size, (unsigned long long)r->buffer_bytes,
                (unsigned long long)r->buffer_blocks, r->wall_s,
                (unsigned long long)r->bytes_touched, (unsigned long long)r->bytes_cpu,
                (unsigned long long)r->bytes_device, throughput(r),
                (unsigned long long)r->faults, (unsigned long long)r->faults_device,
                (unsigned long long)r->migrations_to_device,
                (unsigned long long)r->migrations_to_host,
                (unsigned long long)r->bytes_to_device, (unsigned long long)r->bytes_to_host,
                (unsigned long long)r->evictions, (unsigned long long)r->device_blocks_end,
                (unsigned long long)r->device_blocks_max,
                (unsigned long long)r->device_capacity_blocks,
                (unsigned long long)r->checksum, data_name(x->data), r->samples_dropped);
        for (uint32_t k = 0; k < r->nsamples; k++) {
            const struct exp_sample *s = &x->samples[k];
            fprintf(f, "%s{\"t_s\": %.9f, \"phase\": %u, \"host\": %u, \"device\": %u,"
                       " \"unpopulated\": %u, \"device_tier\": %u}",
                    k ? ",\n       " : "\n       ", s->t_s, s->phase, s->host, s->device,
                    s->unpopulated, s->device_tier);
        }
        fputs("]}", f);
    }
    fputs("\n  ],\n  \"summary\": [", f);
    size_t n = 0;
    for (size_t w = 0; w < cfg->nworkloads; w++)
        for (size_t p = 0; p < cfg->npolicies; p++) {
            const struct exp_cell *c = &cells[w * cfg->npolicies + p];
            fputs(n++ ? ",\n    {" : "\n    {", f);
            fputs("\"workload\": ", f);
            json_str(f, cfg->workloads[w]);
            fputs(", \"policy\": ", f);
            json_str(f, cfg->policies[p]);
            fprintf(f, ", \"runs\": %u, \"ok\": %u, \"error\": ", c->runs, c->ok);
            if (c->error)
                json_str(f, c->error);
            else
                fputs("null", f);
            fprintf(f, ",\n     \"time_s\": %.9f, \"throughput_Bps\": %.1f,"
                       " \"migrations_to_device\": %.1f, \"migrations_to_host\": %.1f,"
                       " \"faults\": %.1f, \"faults_device\": %.1f, \"evictions\": %.1f,"
                       " \"device_blocks_max\": %.1f, \"data_differs\": %u}",
                    c->time_s, c->throughput, c->to_device, c->to_host, c->faults,
                    c->faults_device, c->evictions, c->device_max, c->data_differs);
        }
    fputs("\n  ]\n}\n", f);
    return close_out(f, path, err, errlen);
}

int output_write(const struct exp_config *cfg, const struct exp_run *runs, size_t nruns,
                 const struct exp_cell *cells, char *err, size_t errlen)
{
    if (write_csv(cfg, runs, nruns, err, errlen) ||
        write_timeline(cfg, runs, nruns, err, errlen) ||
        write_summary(cfg, cells, err, errlen) ||
        write_json(cfg, runs, nruns, cells, err, errlen))
        return -1;
    return 0;
}
