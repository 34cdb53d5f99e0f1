package kvstore

import (
	"runtime"
	"syscall"
)

// lowerThread locks the calling goroutine, a flush's or a compaction's, to its OS thread and
// lowers the thread's priority by backgroundNiceSteps. The goroutine must end locked, so that
// the thread ends with it (background.go). On the process's main thread it does nothing: the Go
// runtime parks that thread for good instead of ending it, and the process would then show at
// the lower priority (ps, top) and handle its signals there.
func lowerThread() {
	runtime.LockOSThread()
	tid := syscall.Gettid()
	if tid == syscall.Getpid() {
		runtime.UnlockOSThread()
		return
	}
	nice, err := threadNice()
	if err != nil {
		return
	}
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, tid, min(nice+backgroundNiceSteps, maxNice))
}

// canLowerThreads reports whether this process may set a thread's priority: Linux allows any
// process to lower its own threads, but a sandbox may filter setpriority. It sets a thread's
// priority to what it is.
func canLowerThreads() bool {
	ok := make(chan bool)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread() // the thread is unchanged
		nice, err := threadNice()
		ok <- err == nil && syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), nice) == nil
	}()
	return <-ok
}

// threadNice returns the calling thread's nice value.
func threadNice() (int, error) { return niceOf(syscall.Gettid()) }

// niceOf returns the nice value of thread tid of this process.
func niceOf(tid int) (int, error) {
	prio, err := syscall.Getpriority(syscall.PRIO_PROCESS, tid)
	if err != nil {
		return 0, err
	}
	return 20 - prio, nil // the system call returns 20 - nice, so that it is never negative
}
