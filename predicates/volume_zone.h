/*
 * volume_zone.h: NoVolumeZoneConflict's failure reason (v1.22 volumezone),
 * for its tests. Exactly as kube-scheduler prints it; the predicate itself is
 * volume_zone.c.
 */
#ifndef PREDICATES_VOLUME_ZONE_H
#define PREDICATES_VOLUME_ZONE_H

#define PRED_REASON_VOLUME_ZONE "node(s) had no available volume zone"

#endif
