// Package buildinfo says what this binary is: flashrpc's version, the commit it was built from
// (and whether the tree had uncommitted changes), and the op-geth / go-ethereum version it
// executes blocks with. It reads Go's build information (runtime/debug.ReadBuildInfo), which
// `go build` stamps with the commit when the source is a git checkout; nothing is set by hand
// at link time, so `go build`, `go install` and `go run -buildvcs=true` all carry it.
//
// What Go 1.26 stamps (checked): `go build` and `go install` stamp the commit by default
// (-buildvcs=auto); `go run` does not unless asked (`go run -buildvcs=true`); nothing is
// stamped under GOFLAGS=-buildvcs=false, nor in a git worktree (go finds a repository by its
// .git directory, and a worktree has a .git file). Then the commit is reported as unknown,
// with the reason, never guessed.
//
// It imports nothing from flashrpc and has no mutable state; its functions are safe for
// concurrent use.
package buildinfo
