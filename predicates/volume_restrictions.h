/*
 * volume_restrictions.h: NoDiskConflict's failure reason (v1.22
 * volumerestrictions), for its tests. Exactly as kube-scheduler prints it;
 * the predicate itself is volume_restrictions.c.
 */
#ifndef PREDICATES_VOLUME_RESTRICTIONS_H
#define PREDICATES_VOLUME_RESTRICTIONS_H

#define PRED_REASON_DISK_CONFLICT "node(s) had no available disk"

#endif
