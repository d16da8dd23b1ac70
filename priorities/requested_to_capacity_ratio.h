/*
 * requested_to_capacity_ratio.h: the Policy name v1.22 lists for
 * RequestedToCapacityRatio but accepts only as a custom name with a
 * requestedToCapacityRatioArguments argument, for the message that says
 * so (policy_resolve.c). The priority itself is requested_to_capacity_ratio.c.
 */
#ifndef PRIORITIES_REQUESTED_TO_CAPACITY_RATIO_H
#define PRIORITIES_REQUESTED_TO_CAPACITY_RATIO_H

#define PRIO_NAME_RTCR_POLICY "RequestedToCapacityRatioPriority"

#endif
