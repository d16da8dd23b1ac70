/*
 * volume_limits.h: the failure reason of the volume count predicates (v1.22
 * nodevolumelimits, CSI and non-CSI), shared by volume_limits_csi.c and
 * matched by the tests. Exactly as kube-scheduler prints it; the predicate
 * itself is volume_limits.c.
 */
#ifndef PREDICATES_VOLUME_LIMITS_H
#define PREDICATES_VOLUME_LIMITS_H

#define PRED_REASON_MAX_VOLUME_COUNT "node(s) exceed max volume count"

#endif
