/* SPDX-License-Identifier: MIT */
#define MOD 8
#include "unit.h"
