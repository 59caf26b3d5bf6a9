/* SPDX-License-Identifier: MIT */
#define MOD 12
#include "unit.h"
