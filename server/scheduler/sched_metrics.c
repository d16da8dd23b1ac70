/*
 * sched_metrics.c: the standalone scheduler's Prometheus series
 * (kube-scheduler v1.22's schedule_attempts_total, pending_pods,
 * scheduling_algorithm_duration_seconds, preemption_attempts_total,
 * preemption_victims, leader election status and ours for bindings and
 * Events).
 */
#include "server/scheduler/sched_metrics.h"

#include <stdio.h>

static const char *const result_names[] = { "scheduled", "unschedulable",
                                            "error" };

static double depth_fn(void *arg)
{
    const struct sched_depth *d = arg;

    return (double)sched_pending(d->s, (enum sched_qstate)d->state);
}

void sched_register_metrics(struct scheduler *s, struct metrics *m)
{
    static const double buckets[] = { 0.001, 0.002, 0.004, 0.008, 0.016,
                                      0.032, 0.064, 0.128, 0.256, 0.512,
                                      1.024, 2.048, 4.096, 8.192, 16.384 };
    static const char *const queues[] = { "active", "backoff", "unschedulable",
                                          "in_flight" };
    static const double victims[] = { 1, 2, 4, 8, 16, 32, 64 };
    size_t nb = sizeof(buckets) / sizeof(buckets[0]);
    char label[128];
    int i;

    for (i = 0; i < 4; i++) {
        s->depth[i].s = s;
        s->depth[i].state = i;
        snprintf(label, sizeof(label), "queue=\"%s\"", queues[i]);
        metrics_gauge_fn(m, "kpe_scheduler_pending_pods",
                         "Pods waiting in each scheduling queue.", label,
                         depth_fn, &s->depth[i]);
    }
    for (i = 0; i < 3; i++) {
        snprintf(label, sizeof(label), "result=\"%s\"", result_names[i]);
        s->attempts[i] = metrics_counter(
            m, "kpe_schedule_attempts_total",
            "Scheduling attempts by result (scheduled, unschedulable, error).",
            label);
        s->attempt_duration[i] = metrics_histogram(
            m, "kpe_scheduling_attempt_duration_seconds",
            "Scheduling attempt latency in seconds (decision and binding).",
            label, buckets, nb);
    }
    s->algorithm_duration = metrics_histogram(
        m, "kpe_scheduling_algorithm_duration_seconds",
        "Decision latency in seconds: filter (until enough nodes fit, "
        "percentageOfNodesToScore) and score.",
        "", buckets, nb);
    s->binding_duration = metrics_histogram(
        m, "kpe_binding_duration_seconds",
        "Latency in seconds of the Binding POST.", "", buckets, nb);
    s->preemption_attempts = metrics_counter(
        m, "kpe_preemption_attempts_total",
        "Preemptions tried: pods that fit no node (DefaultPreemption).", "");
    s->preemption_victims =
        metrics_histogram(m, "kpe_preemption_victims",
                          "Pods evicted per preemption that nominated a node.",
                          "", victims, sizeof(victims) / sizeof(victims[0]));
    s->events_dropped = metrics_counter(
        m, "kpe_scheduler_events_dropped_total",
        "Events not sent because the event queue was full.", "");
    for (i = 0; i < 2; i++)
        s->events_posted[i] = metrics_counter(
            m, "kpe_scheduler_events_posted_total",
            "Events POSTed to the API server, by result (sent, failed).",
            i ? "result=\"failed\"" : "result=\"sent\"");
    snprintf(label, sizeof(label), "name=\"%s\"", s->opts.scheduler_name);
    s->leader = metrics_gauge(
        m, "kpe_leader_election_master_status",
        "1 while this replica leads (and schedules), else 0.", label);
}
