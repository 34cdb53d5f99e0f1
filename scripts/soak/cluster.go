package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cluster is a running scripts/cluster: its process and where its parts listen.
type cluster struct {
	cmd         *exec.Cmd
	output      chan struct{} // closed once scripts/cluster's output has been read to its end
	dir         string
	primaryPort int   // the primary's standard port; +1 pre-confirmed, +2 feed, +3 metrics
	replicas    []int // each replica's standard port, as the primary's
	lbPort      int   // HAProxy's standard frontend; +1 the pre-confirmed one
}

// processes are the cluster's processes, by the name of their pid file.
func (c *cluster) processes() []string {
	names := []string{"primary"}
	for i := range c.replicas {
		names = append(names, fmt.Sprintf("replica%d", i+1))
	}
	return append(names, "haproxy")
}

func (c *cluster) url(port int) string { return fmt.Sprintf("http://127.0.0.1:%d", port) }
func (c *cluster) ws(port int) string  { return fmt.Sprintf("ws://127.0.0.1:%d", port) }

// lbURL is HAProxy's pre-confirmed frontend, or its standard one.
func (c *cluster) lbURL(preconfirmed bool) string {
	if preconfirmed {
		return c.url(c.lbPort + 1)
	}
	return c.url(c.lbPort)
}

// nodePort returns the standard port of the flashrpc process name, 0 for HAProxy.
func (c *cluster) nodePort(name string) int {
	if name == "primary" {
		return c.primaryPort
	}
	if n, ok := strings.CutPrefix(name, "replica"); ok {
		if i, err := strconv.Atoi(n); err == nil && i >= 1 && i <= len(c.replicas) {
			return c.replicas[i-1]
		}
	}
	return 0
}

// pid reads the pid file of a process: a process restarted by hand writes its new pid there.
func (c *cluster) pid(name string) (int, error) {
	b, err := os.ReadFile(filepath.Join(c.dir, name+".pid"))
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}

// startCluster runs scripts/cluster with two replicas, every node's metrics and the primary's
// dev accounts, and returns once it says "cluster ready".
func startCluster(ctx context.Context, cfg config) (*cluster, error) {
	script, err := findScript()
	if err != nil {
		return nil, err
	}
	c := &cluster{dir: cfg.dir, primaryPort: cfg.port, replicas: []int{cfg.port + 10, cfg.port + 20}, lbPort: cfg.port + 100}
	c.cmd = exec.Command(script, "--replicas", "2", "--port", strconv.Itoa(cfg.port), "--dir", cfg.dir,
		"--metrics", "--dev-args", strings.TrimSpace(fmt.Sprintf("--accounts %d %s", cfg.accounts, cfg.nodeArgs)),
		"--follow-args", cfg.nodeArgs)
	c.cmd.Env = os.Environ()
	if cfg.bin != "" {
		bin, err := filepath.Abs(cfg.bin)
		if err != nil {
			return nil, err
		}
		c.cmd.Env = append(c.cmd.Env, "FLASHRPC_BIN="+bin)
	}
	out, err := c.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	c.cmd.Stderr = os.Stderr
	if err := c.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", script, err)
	}
	// Either message is dropped when the other is waiting or nobody waits any more.
	ready := make(chan error, 1)
	report := func(err error) {
		select {
		case ready <- err:
		default:
		}
	}
	c.output = make(chan struct{})
	go func() {
		defer close(c.output)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			fmt.Fprintln(os.Stderr, "cluster:", sc.Text())
			if strings.HasPrefix(sc.Text(), "cluster ready") {
				report(nil)
			}
		}
		report(errors.New("scripts/cluster ended before it was ready"))
	}()
	select {
	case err = <-ready:
	case <-time.After(5 * time.Minute): // the first build of flashrpc included
		err = errors.New("scripts/cluster was not ready after 5 minutes")
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		c.stop()
		return nil, err
	}
	return c, nil
}

// outputWait bounds how long stop waits for scripts/cluster's output to end: a process it
// started and failed to stop may hold the pipe open.
const outputWait = time.Minute

// stop stops the cluster: scripts/cluster stops every process it started on SIGTERM. Its
// output is read to the end before Wait, which closes the pipe (os/exec: Wait must not
// be called before the reads completed), so its last lines are not lost.
func (c *cluster) stop() {
	if c.cmd.Process == nil || c.cmd.ProcessState != nil {
		return
	}
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		log.Printf("soak: stop scripts/cluster: %v", err)
	}
	select {
	case <-c.output:
	case <-time.After(outputWait):
		log.Printf("soak: scripts/cluster's output still open %s after SIGTERM: a process it started may be left", outputWait)
	}
	if err := c.cmd.Wait(); err != nil {
		log.Printf("soak: scripts/cluster: %v", err)
	}
}

// findScript finds scripts/cluster from the working directory or one of its parents.
func findScript() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, "scripts", "cluster")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("scripts/cluster not found: run soak from the repository")
		}
		dir = parent
	}
}
