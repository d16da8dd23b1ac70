/*
 * args_check.h: checks on Policy arguments that both the plugins' argument
 * parsers and the Policy validation apply (args_check.c): apimachinery's
 * label syntax.
 */
#ifndef FRAMEWORK_ARGS_CHECK_H
#define FRAMEWORK_ARGS_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "framework/args.h"
#include "kube/base/err.h"

/*
 * apimachinery validation.IsQualifiedName: up to `max` messages in msgs
 * (static strings); returns how many there are.
 */
size_t kpe_qualified_name_errors(const char *s, const char **msgs, size_t max);
bool kpe_is_label_value(const char *s);

#endif
