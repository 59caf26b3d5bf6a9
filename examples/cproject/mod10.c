/* SPDX-License-Identifier: MIT */
#define MOD 10
#include "unit.h"
