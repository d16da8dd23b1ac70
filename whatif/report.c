/*
 * report.c: the HTML report (report.h). Bars are plain div widths; the
 * page has inline CSS only.
 */
#include "whatif/report.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Text as HTML (also good inside a double-quoted attribute). */
static void esc(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        case '\'':
            fputs("&#39;", f);
            break;
        default:
            fputc(*s, f);
        }
    }
}

static const char css[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}"
    "h1{font-size:1.4em}h2{font-size:1.1em;margin-top:2em}"
    "table{border-collapse:collapse}td,th{padding:2px 8px;text-align:left;"
    "vertical-align:top;border-bottom:1px solid #eee}"
    ".bar{background:#eee;width:160px;height:10px;margin:2px 0}"
    ".bar div{background:#4a7;height:10px}.bar div.full{background:#c54}"
    ".state{font-size:11px;color:#666}.moved td{background:#fff4e0}"
    ".num{text-align:right;font-variant-numeric:tabular-nums}";

static int pct(int64_t used, int64_t of)
{
    int64_t p = of > 0 ? used * 100 / of : 0;

    return p < 0 ? 0 : p > 100 ? 100 : (int)p;
}

static void bar(FILE *f, const char *state, int64_t used, int64_t of)
{
    int p = pct(used, of);

    fprintf(f,
            "<div class=\"state\">%s %d%%</div><div class=\"bar\"><div "
            "class=\"%s\" style=\"width:%d%%\"></div></div>",
            state, p, p >= 100 ? "full" : "", p);
}

static void nodes_table(FILE *f, const struct whatif_report *r)
{
    size_t i, k, w;

    fputs("<h2>Node utilisation</h2>\n<table id=\"nodes\">"
          "<tr><th>Node</th><th>CPU</th><th>Memory</th><th>Pods</th></tr>\n",
          f);
    for (i = 0; i < r->c->n_nodes; i++) {
        const struct kube_resources *al = &r->c->nodes[i].node->allocatable;
        int64_t alloc[3] = { al->milli_cpu, al->memory, al->pods };

        fputs("<tr class=\"node\" data-node=\"", f);
        esc(f, r->c->nodes[i].node->name);
        fprintf(f,
                "\" data-allocatable-cpu=\"%lld\" "
                "data-allocatable-memory=\"%lld\" "
                "data-allocatable-pods=\"%lld\"",
                (long long)alloc[0], (long long)alloc[1], (long long)alloc[2]);
        for (k = 0; k < r->n_states; k++) {
            const struct whatif_usage *u = &r->usage[k][i];

            fprintf(f,
                    " data-%s-cpu=\"%lld\" data-%s-memory=\"%lld\" "
                    "data-%s-pods=\"%lld\"",
                    r->states[k], (long long)u->cpu, r->states[k],
                    (long long)u->memory, r->states[k], (long long)u->pods);
        }
        fputs("><td>", f);
        esc(f, r->c->nodes[i].node->name);
        fputs("</td>", f);
        for (w = 0; w < 3; w++) {
            fputs("<td>", f);
            for (k = 0; k < r->n_states; k++) {
                const struct whatif_usage *u = &r->usage[k][i];
                int64_t v = w == 0 ? u->cpu : w == 1 ? u->memory : u->pods;

                bar(f, r->states[k], v, alloc[w]);
            }
            fprintf(f, "</td>");
        }
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

static void rows_table(FILE *f, const struct whatif_report *r)
{
    size_t i, k;

    fputs("<h2>", f);
    esc(f, r->rows_title);
    fprintf(f, " (%zu)</h2>\n<table id=\"pods\"><tr><th>Pod</th>", r->n_rows);
    for (k = 0; k < r->n_columns; k++) {
        fputs("<th>", f);
        esc(f, r->columns[k]);
        fputs("</th>", f);
    }
    fputs("<th>Why not</th></tr>\n", f);
    for (i = 0; i < r->n_rows; i++) {
        const struct whatif_report_row *row = &r->rows[i];

        fprintf(f, "<tr class=\"placement%s\" data-pod=\"",
                r->n_columns == 2 ? " moved" : "");
        esc(f, row->pod);
        fputs("\"", f);
        for (k = 0; k < r->n_columns; k++) {
            fprintf(f, " data-%s=\"", r->columns[k]);
            esc(f, row->node[k] ? row->node[k] : "");
            fputs("\"", f);
        }
        fputs("><td>", f);
        esc(f, row->pod);
        fputs("</td>", f);
        for (k = 0; k < r->n_columns; k++) {
            fputs("<td>", f);
            esc(f, row->node[k] ? row->node[k] : "(unschedulable)");
            fputs("</td>", f);
        }
        fputs("<td>", f);
        esc(f, row->message ? row->message : "");
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
}

static void scores_table(FILE *f, const struct whatif_report *r)
{
    const struct eval_result *s = r->scores;
    const struct prio_plan *plan = r->plan;
    size_t i, k;

    fputs("<h2>Scores of ", f);
    esc(f, r->score_pod);
    fputs(" on each node</h2>\n<table id=\"scores\" data-pod=\"", f);
    esc(f, r->score_pod);
    fputs("\"><tr><th>Node</th><th>Total</th>", f);
    for (k = 0; k < plan->n_names; k++) {
        if (plan->names[k].step < 0)
            continue;
        fputs("<th>", f);
        esc(f, plan->names[k].name);
        fputs("</th>", f);
    }
    fputs("<th>Why not</th></tr>\n", f);
    for (i = 0; i < s->n_nodes; i++) {
        const struct eval_node *en = &s->nodes[i];
        bool scored = en->feasible_index >= 0 && s->scored;

        fputs("<tr class=\"score\" data-node=\"", f);
        esc(f, en->ni->node->name);
        fprintf(f, "\" data-feasible=\"%s\" data-total=\"%lld\"><td>",
                en->feasible ? "true" : "false",
                scored ? (long long)s->prio.totals[en->feasible_index] : 0LL);
        esc(f, en->ni->node->name);
        fprintf(f, "</td><td class=\"num\">%lld</td>",
                scored ? (long long)s->prio.totals[en->feasible_index] : 0LL);
        for (k = 0; k < plan->n_names; k++) {
            int st = plan->names[k].step;

            if (st < 0)
                continue;
            fputs("<td class=\"num\" data-priority=\"", f);
            esc(f, plan->names[k].name);
            if (scored)
                fprintf(f, "\">%lld</td>",
                        (long long)s->prio.scores[(size_t)st * s->prio.n_nodes +
                                                  (size_t)en->feasible_index]);
            else
                fputs("\">-</td>", f);
        }
        fputs("<td>", f);
        for (k = 0; k < en->verdict.n_failures; k++) {
            fputs(k ? "; " : "", f);
            esc(f, en->verdict.failures[k].predicate);
        }
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
}

int whatif_report_write(const char *path, const struct whatif_report *r,
                        struct err *e)
{
    FILE *f = fopen(path, "w");
    int bad;

    if (!f)
        return err_set(e, "--report %s: %s", path, strerror(errno));
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
          "<title>kube-policy-extender ",
          f);
    esc(f, r->title);
    fprintf(f, "</title><style>%s</style></head>\n<body>\n<h1>", css);
    esc(f, r->title);
    fputs("</h1>\n<p id=\"detail\">", f);
    esc(f, r->detail);
    fputs("</p>\n", f);
    nodes_table(f, r);
    rows_table(f, r);
    if (r->scores && r->plan)
        scores_table(f, r);
    fputs("</body></html>\n", f);
    bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return err_set(e, "--report %s: write error", path);
    return 0;
}
