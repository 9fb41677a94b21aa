//go:build !unix

package main

import "time"

// processCPU reports that there is no process CPU clock here.
func processCPU() time.Duration { return -1 }
