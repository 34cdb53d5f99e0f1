package health

import (
	"encoding/json"
	"net/http"
	"time"
)

// Status is the JSON body of GET /health. Fields that do not apply in a mode are null.
type Status struct {
	// Head is the sealed head's number.
	Head uint64 `json:"head"`
	// UpstreamHead is the upstream's newest block (follow mode); null elsewhere, and while
	// the upstream has not answered.
	UpstreamHead *uint64 `json:"upstreamHead"`
	// Lag is UpstreamHead - Head, in blocks, 0 when the node is ahead (follow mode).
	Lag *uint64 `json:"lag"`
	// PendingIndex is the index of the newest pre-confirmation of the block in progress;
	// null when no block is in progress (serve mode, or between a seal and the next block).
	PendingIndex *int `json:"pendingIndex"`
	// Feed is "connected" or "disconnected": the flashblocks feed a replica follows (follow
	// mode); null elsewhere.
	Feed *string `json:"feed"`
	// Problems says why the node is not fit to serve; absent when it is.
	Problems []string `json:"problems,omitempty"`
}

// Feed states.
const (
	FeedUp   = "connected"
	FeedDown = "disconnected"
)

// A Probe fills in the fields of a Status it knows. Probes run in the order given, so a
// probe may read fields an earlier one filled (Upstream reads Head).
type Probe func(s *Status)

// A Rule returns why the node, as s describes it at now, is not fit to serve, or "" when it
// is.
type Rule func(s *Status, now time.Time) string

// Config is a Checker's probes and rules.
type Config struct {
	Probes []Probe
	Rules  []Rule
	// Now returns the time rules judge at; nil means time.Now.
	Now func() time.Time
}

// Checker answers health checks. It is safe for concurrent use.
type Checker struct {
	cfg Config
}

// New returns a Checker with cfg's probes and rules.
func New(cfg Config) *Checker {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Checker{cfg: cfg}
}

// Check runs the probes and the rules and reports whether the node is fit to serve.
func (c *Checker) Check() (Status, bool) {
	var s Status
	for _, p := range c.cfg.Probes {
		p(&s)
	}
	now := c.cfg.Now()
	for _, r := range c.cfg.Rules {
		if problem := r(&s, now); problem != "" {
			s.Problems = append(s.Problems, problem)
		}
	}
	return s, len(s.Problems) == 0
}

// ServeHTTP answers a health check: the Status as JSON, 200 when fit, 503 when not.
func (c *Checker) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s, ok := c.Check()
	body, _ := json.Marshal(s) // cannot fail: plain fields
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	if ok {
		w.WriteHeader(http.StatusOK)
	} else {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	w.Write(append(body, '\n'))
}
