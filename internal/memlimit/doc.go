// Package memlimit finds the memory a node may use and reads and writes memory sizes: the
// machine's memory (/proc/meminfo), the limit of the process's cgroup (v2 memory.max, v1
// memory.limit_in_bytes), the default soft limit of the Go runtime's memory taken from them
// (Default), and sizes written as GOMEMLIMIT writes them (ParseSize, FormatSize).
// cmd/flashrpc owns the --memory-limit flag and applies the limit; this package applies
// nothing.
//
// Concurrency: every function is safe for concurrent use. Imports: the standard library only.
package memlimit
