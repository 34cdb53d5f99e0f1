package rpc

import (
	"net/http"
	"net/netip"
	"net/url"
	"strings"
)

// This file decides who may talk to the endpoint, as go-ethereum's node package does
// (node/rpcstack.go, rpc/websocket.go). The threat is a web page in the developer's
// browser: through DNS rebinding its own host name resolves to 127.0.0.1, so its requests
// reach the node as same-origin requests that CORS does not stop. The Host header still
// names the page's host, and a WebSocket upgrade carries the page's Origin, so:
//
//   - every request whose Host is not an allowed virtual host is refused with 403
//     (Config.VirtualHosts; IP literals and requests without Host are always allowed);
//   - a WebSocket upgrade whose Origin is not allowed is refused with 403
//     (Config.WSOrigins; no Origin header means no browser, which is allowed);
//   - CORS headers are sent only to the origins of Config.CORSOrigins.

// exposure holds the parsed exposure settings of a Server. It is read-only after
// newExposure.
type exposure struct {
	anyHost   bool
	vhosts    map[string]bool // lower-case host names
	anyOrigin bool
	origins   []originRule // nil: the endpoint's own localhost origins
	anyCORS   bool
	cors      []originRule
}

// originRule is an allowed origin, go-ethereum's way: scheme, host name and port, each
// empty when the rule leaves it open ("localhost" allows any scheme and port).
type originRule struct{ scheme, host, port string }

func newExposure(cfg *Config) *exposure {
	e := &exposure{vhosts: make(map[string]bool)}
	for _, h := range cfg.VirtualHosts {
		switch h = strings.ToLower(strings.TrimSpace(h)); h {
		case "*":
			e.anyHost = true
		case "":
		default:
			e.vhosts[h] = true
		}
	}
	e.anyOrigin, e.origins = originRules(cfg.WSOrigins)
	e.anyCORS, e.cors = originRules(cfg.CORSOrigins)
	return e
}

// originRules parses a list of origins; "*" allows every origin.
func originRules(list []string) (any bool, rules []originRule) {
	for _, o := range list {
		switch o = strings.TrimSpace(o); o {
		case "*":
			any = true
		case "":
		default:
			if r, ok := parseOrigin(o); ok {
				rules = append(rules, r)
			}
		}
	}
	return any, rules
}

// parseOrigin splits an origin ("https://app.example:8080", or a rule without scheme or
// port such as "localhost") into its lower-case parts.
func parseOrigin(o string) (originRule, bool) {
	o = strings.ToLower(o)
	if !strings.Contains(o, "://") {
		o = "//" + o // a host with an optional port
	}
	u, err := url.Parse(o)
	if err != nil || u.Host == "" {
		return originRule{}, false
	}
	return originRule{scheme: u.Scheme, host: u.Hostname(), port: u.Port()}, true
}

// allows reports whether the rule admits origin o (parsed, with every part set).
func (r originRule) allows(o originRule) bool {
	return (r.scheme == "" || r.scheme == o.scheme) &&
		(r.host == "" || r.host == o.host) &&
		(r.port == "" || r.port == o.port)
}

// effectivePort returns the origin's port, or its scheme's default when it has none
// (browsers leave out :80 for http and :443 for https).
func (o originRule) effectivePort() string {
	switch {
	case o.port != "":
		return o.port
	case o.scheme == "http":
		return "80"
	case o.scheme == "https":
		return "443"
	}
	return ""
}

// hostAllowed applies go-ethereum's virtualHostHandler to a Host header value: an empty
// Host (no browser sends one) and IP literals are allowed, host names when listed.
func (e *exposure) hostAllowed(host string) bool {
	if host == "" || e.anyHost {
		return true
	}
	name := hostName(host)
	if e.vhosts[strings.ToLower(name)] {
		return true
	}
	_, err := netip.ParseAddr(name) // after the lookup: its error for a name allocates
	return err == nil
}

// hostName returns the host of a Host value without port and brackets: "localhost:8545"
// gives "localhost", "[::1]:8545" and "[::1]" give "::1". A value with several colons
// outside brackets is an IPv6 address as it is. Unlike net.SplitHostPort it allocates no
// error for a value without port.
func hostName(host string) string {
	if strings.HasPrefix(host, "[") {
		if end := strings.IndexByte(host, ']'); end > 0 {
			return host[1:end]
		}
		return host
	}
	if i := strings.IndexByte(host, ':'); i >= 0 && strings.LastIndexByte(host, ':') == i {
		return host[:i]
	}
	return host
}

// originAllowed reports whether a WebSocket upgrade with the Origin header origin (present
// tells whether there was one) may proceed. localPort is the port the connection came in
// on; the default rules are the endpoint's own localhost origins on it.
func (e *exposure) originAllowed(origin string, present bool, localPort string) bool {
	if !present || e.anyOrigin {
		return true
	}
	o, ok := parseOrigin(origin)
	if !ok || o.scheme == "" {
		return false
	}
	if e.origins == nil {
		switch o.host {
		case "localhost", "127.0.0.1", "::1":
		default:
			return false
		}
		return (o.scheme == "http" || o.scheme == "https") && o.effectivePort() == localPort && localPort != ""
	}
	for _, r := range e.origins {
		if r.allows(o) {
			return true
		}
	}
	return false
}

// corsEnabled reports whether any origin gets CORS headers.
func (e *exposure) corsEnabled() bool { return e.anyCORS || len(e.cors) > 0 }

// corsOrigin returns the Access-Control-Allow-Origin value for a request from origin:
// "*" when every origin is allowed, origin itself when it is listed, "" otherwise (no
// CORS headers).
func (e *exposure) corsOrigin(origin string) string {
	if origin == "" || !e.corsEnabled() {
		return ""
	}
	if e.anyCORS {
		return "*"
	}
	o, ok := parseOrigin(origin)
	if !ok || o.scheme == "" {
		return ""
	}
	for _, r := range e.cors {
		if r.allows(o) {
			return origin
		}
	}
	return ""
}

// corsMaxAge is how long a browser may cache a preflight answer, in seconds (go-ethereum's).
const corsMaxAge = "600"

// preflight answers a CORS preflight request (OPTIONS with Access-Control-Request-Method)
// as go-ethereum's CORS handler does: 204, and the CORS headers when the origin is allowed
// and the method is POST or GET.
func (e *exposure) preflight(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h["Vary"] = []string{"Origin, Access-Control-Request-Method, Access-Control-Request-Headers"}
	method := strings.ToUpper(r.Header.Get("Access-Control-Request-Method"))
	if allow := e.corsOrigin(r.Header.Get("Origin")); allow != "" && (method == http.MethodPost || method == http.MethodGet) {
		h["Access-Control-Allow-Origin"] = []string{allow}
		h["Access-Control-Allow-Methods"] = []string{method}
		if hdrs := r.Header.Get("Access-Control-Request-Headers"); hdrs != "" {
			h["Access-Control-Allow-Headers"] = []string{hdrs}
		}
		h["Access-Control-Max-Age"] = []string{corsMaxAge}
	}
	w.WriteHeader(http.StatusNoContent)
}
