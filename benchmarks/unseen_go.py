"""Unseen probe session 1: a Go HTTP gateway whose rate limiter keys every mesh call alike."""
# ruff: noqa: E501  (scripted transcripts: tool output and code kept as the tools print them)

from __future__ import annotations

from benchmarks.unseen_log import Log, UnseenSession

_LIMITER = """package ratelimit

import (
\t"net/http"
\t"sync"
\t"time"
)

// Limiter is a token bucket per key.
type Limiter struct {
\tmu          sync.Mutex
\tbuckets     map[string]*bucket
\tburst       int
\trefillEvery time.Duration
}

type bucket struct {
\ttokens int
\tlast   time.Time
}

func New(burst int, refillEvery time.Duration) *Limiter {
\treturn &Limiter{buckets: map[string]*bucket{}, burst: burst, refillEvery: refillEvery}
}

func keyFor(r *http.Request) string {
\treturn r.RemoteAddr
}

func (l *Limiter) Allow(r *http.Request) bool {
\tl.mu.Lock()
\tdefer l.mu.Unlock()
\tk := keyFor(r)
\tb, ok := l.buckets[k]
\tif !ok {
\t\tb = &bucket{tokens: l.burst, last: time.Now()}
\t\tl.buckets[k] = b
\t}
\tl.refill(b)
\tif b.tokens == 0 {
\t\treturn false
\t}
\tb.tokens--
\treturn true
}
"""

_HEADERS = """package proxy

import "net/http"

// copyHeaders forwards the client's headers, adding X-Forwarded-For.
func copyHeaders(dst, src http.Header, remote string) {
\tfor k, vs := range src {
\t\tfor _, v := range vs {
\t\t\tdst.Add(k, v)
\t\t}
\t}
\tdst.Add("X-Forwarded-For", remote)
}
"""

_MTLS = """package auth

import "net/http"

// PeerID returns the SPIFFE ID of the calling workload, from its client certificate.
func PeerID(r *http.Request) (string, bool) {
\tif r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
\t\treturn "", false
\t}
\tfor _, u := range r.TLS.PeerCertificates[0].URIs {
\t\tif u.Scheme == "spiffe" {
\t\t\treturn u.String(), true
\t\t}
\t}
\treturn "", false
}
"""

_LOAD = """package config

import (
\t"os"

\t"gopkg.in/yaml.v3"
)

type Limits struct {
\tDefaultRPS int `yaml:"default_rps"`
\tBurst      int `yaml:"burst"`
}

func Load(path string) (Limits, error) {
\tvar l Limits
\traw, err := os.ReadFile(path)
\tif err != nil {
\t\treturn l, err
\t}
\treturn l, yaml.Unmarshal(raw, &l)
}
"""

_LIMITS_YAML = "default_rps: 200\nburst: 50\n"

_CLIENTIP = """package ratelimit

import (
\t"net"
\t"net/http"
)

// clientIP is the caller's address when no workload identity is known.
func clientIP(r *http.Request) string {
\tif ip := r.Header.Get("X-Real-IP"); ip != "" {
\t\treturn ip
\t}
\thost, _, err := net.SplitHostPort(r.RemoteAddr)
\tif err != nil {
\t\treturn r.RemoteAddr
\t}
\treturn host
}
"""

_HANDLERS = {
    "internal/api/routes.go": 'package api\n\nfunc Routes(mux *http.ServeMux, h *Handlers) {\n\tmux.Handle("/v1/quote", h.limit(h.Quote))\n\tmux.Handle("/v1/invoice", h.limit(h.Invoice))\n\tmux.Handle("/healthz", http.HandlerFunc(h.Health))\n}\n',
    "internal/api/middleware.go": 'package api\n\nfunc (h *Handlers) limit(next http.HandlerFunc) http.Handler {\n\treturn http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {\n\t\tif !h.limiter.Allow(r) {\n\t\t\thttp.Error(w, "rate limited", http.StatusTooManyRequests)\n\t\t\treturn\n\t\t}\n\t\tnext(w, r)\n\t})\n}\n',
    "cmd/gatewayd/main.go": 'package main\n\nfunc main() {\n\tcfg := flag.String("limits", "config/limits.yaml", "limits file")\n\tflag.Parse()\n\tlimits, err := config.Load(*cfg)\n\tif err != nil {\n\t\tlog.Fatal(err)\n\t}\n\tl := ratelimit.New(limits.Burst, time.Second)\n\tsrv := api.NewServer(l)\n\tlog.Fatal(srv.ListenAndServe())\n}\n',
}


def build() -> UnseenSession:
    """The Go session: three segments, 26 probes."""
    s = Log("go")
    s.user(
        "Since yesterday's deploy the gateway hands out 429s to our own internal callers. "
        "Repo is gatewayd. Can you dig into internal/ratelimit and tell me what changed?"
    )
    s.bash("go version", "go version go1.22.4 linux/amd64", text="Checking the toolchain first.")
    s.bash(
        "git log --oneline -6",
        "a41c9e2 mesh: route internal traffic through the sidecar\n"
        "77d0b13 api: add /v1/invoice\n3b9f004 ratelimit: burst 50\n"
        "e0c2a71 config: yaml limits\n91aa3d0 ci: go 1.22\n0f3e8c2 initial",
    )
    s.read("internal/ratelimit/limiter.go", _LIMITER)
    s.grep(
        "X-Forwarded-For",
        ['internal/proxy/headers.go:12:\tdst.Add("X-Forwarded-For", remote)'],
        text="Where does the client address come from?",
    )
    s.read("internal/proxy/headers.go", _HEADERS)
    s.bash(
        "kubectl -n edge logs deploy/gatewayd --since=1h | grep -c 'status=429'",
        "18342",
        text="How many rejections are we talking about?",
    )
    s.probe("fact", "18342")
    s.say(
        "Found the cause. `keyFor` keys each bucket on `r.RemoteAddr`, and since a41c9e2 every "
        "internal call reaches us through the mesh sidecar at 10.42.0.7, so all internal "
        "services now share a single bucket of 50 tokens."
    )
    s.probe("fact", "10.42.0.7", "sidecar")
    s.user("ugh. ok, what should we key on instead?")
    s.say(
        "Two options: (1) the client IP from X-Forwarded-For, which the sidecar fills in, or "
        "(2) the workload identity from the mTLS client certificate (the SPIFFE ID)."
    )
    s.user("the second one. anything inside the mesh can spoof XFF.")
    s.probe("decision", "SPIFFE", "spoof")
    s.say(
        "Callers without a client certificate (the public API) still need a key. Per-IP "
        "buckets, or one shared anonymous bucket?"
    )
    s.user("per-IP, because the anonymous partners would starve each other in a shared one")
    s.probe("decision", "per-IP", "starve")
    s.read("internal/auth/mtls.go", _MTLS, text="There is already a helper for the peer identity.")
    s.edit(
        "internal/ratelimit/limiter.go",
        "\treturn r.RemoteAddr",
        '\tif id, ok := auth.PeerID(r); ok {\n\t\treturn "svc:" + id\n\t}\n\treturn "ip:" + clientIP(r)',
        text="Keying on the peer identity, falling back to the client IP.",
    )
    s.probe("file change", "internal/ratelimit/limiter.go", "PeerID")
    s.edit(
        "internal/ratelimit/limiter.go",
        '\t"net/http"\n\t"sync"',
        '\t"net/http"\n\t"sync"\n\n\t"gatewayd/internal/auth"',
    )
    s.bash(
        "go build ./...",
        "# gatewayd/internal/ratelimit\ninternal/ratelimit/limiter.go:31:20: undefined: clientIP",
        2,
    )
    s.write("internal/ratelimit/clientip.go", _CLIENTIP, text="Adding the fallback helper.")
    s.probe("file change", "internal/ratelimit/clientip.go", "created")
    s.bash("go build ./...", "", 0)
    s.probe("fact", "go build ./...", "exit 0", stale="exit 2")
    s.bash(
        "go test ./internal/ratelimit/...",
        "--- FAIL: TestLimiterPerIP (0.00s)\n"
        "    limiter_test.go:58: second client: got 429, want 200\n"
        "FAIL\nFAIL\tgatewayd/internal/ratelimit\t0.014s\nFAIL",
        1,
    )
    s.say(
        "TestLimiterPerIP fails because httptest.NewRequest gives every request the same "
        "RemoteAddr, 192.0.2.1:1234, so both fake clients land in one ip: bucket now that the "
        "port is stripped."
    )
    s.probe("fact", "192.0.2.1")
    s.edit(
        "internal/ratelimit/limiter_test.go",
        '\treq2 := httptest.NewRequest(http.MethodGet, "/v1/quote", nil)',
        '\treq2 := httptest.NewRequest(http.MethodGet, "/v1/quote", nil)\n'
        '\treq2.RemoteAddr = "198.51.100.9:5555"',
    )
    s.bash("go test ./internal/ratelimit/...", "ok  \tgatewayd/internal/ratelimit\t0.011s", 0)
    s.probe("fact", "go test ./internal/ratelimit/...", "exit 0", stale="exit 1")
    s.user(
        "Good. For the record: per-service limits come from config rather than code, so ops "
        "can retune them without a deploy."
    )
    s.probe("decision", "per-service limits", "without a deploy")
    s.user(
        "And please never log the full SPIFFE ID at info level, it leaks the namespace. "
        "Debug is fine."
    )
    s.probe("preference", "full SPIFFE ID")
    s.read("config/limits.yaml", _LIMITS_YAML)
    s.edit(
        "config/limits.yaml",
        "burst: 50\n",
        "burst: 50\nservices:\n  spiffe://mesh/billing: 800\n  spiffe://mesh/search: 1200\n",
        text="Adding the two services ops asked about.",
    )
    for path, body in _HANDLERS.items():
        s.read(path, body)
    s.say(
        "The middleware only calls `Allow`, so nothing in internal/api needs to change for the "
        "new key. main.go passes `limits.Burst` straight into `ratelimit.New`."
    )
    s.user("TODO: add a metric for rejected requests per service.")
    s.user("TODO: document the services map in the README.")
    s.probe("todo", "services map in the README")
    s.bash("go vet ./...", "", 0)
    s.bash(
        "git diff --stat",
        " config/limits.yaml | 3 +++\n internal/ratelimit/clientip.go | 19 +++\n internal/ratelimit/limiter.go | 7 +++-\n internal/ratelimit/limiter_test.go | 1 +\n 4 files changed, 28 insertions(+), 2 deletions(-)",
    )
    s.cut()

    s.user("Now the loader has to understand the services map. It's internal/config/load.go.")
    s.read("internal/config/load.go", _LOAD)
    s.edit(
        "internal/config/load.go",
        '\tBurst      int `yaml:"burst"`',
        '\tBurst      int            `yaml:"burst"`\n\tServices   map[string]int `yaml:"services"`',
    )
    s.probe("file change", "internal/config/load.go", "Services")
    s.say(
        "For reloading: we can (1) reload the parsed limits on SIGHUP, or (2) poll the file "
        "every 30 seconds."
    )
    s.user("Let's reload on SIGHUP; it's the usual thing for our daemons.")
    s.edit(
        "internal/proxy/headers.go",
        '\tdst.Add("X-Forwarded-For", remote)',
        '\tdst.Del("X-Forwarded-For")\n\tdst.Set("X-Forwarded-For", remote)',
        text="While here: the proxy appends to a client-supplied XFF, which is how it gets spoofed.",
    )
    s.user("Hm, no, leave headers.go alone in this PR, the edge team owns it. Please undo that.")
    s.bash("git checkout -- internal/proxy/headers.go", "", 0)
    s.probe("file change", "internal/proxy/headers.go", "reverted", stale="edited")
    s.user(
        "The sidecar IP allowlist in deploy/mesh.yaml is also out of date, but that's for a "
        "separate PR."
    )
    s.probe("todo", "sidecar IP allowlist")
    s.grep(
        "slidingWindow",
        [
            "internal/ratelimit/legacy_window.go:9:type slidingWindow struct {",
            "internal/ratelimit/legacy_window.go:22:func newSlidingWindow(size int) *slidingWindow {",
        ],
        text="Is the old sliding-window limiter still referenced anywhere?",
    )
    s.say("Only its own file mentions slidingWindow; nothing calls it since 3b9f004.")
    s.bash(
        "git rm internal/ratelimit/legacy_window.go",
        "rm 'internal/ratelimit/legacy_window.go'",
        0,
    )
    s.probe("file change", "internal/ratelimit/legacy_window.go", "deleted")
    s.edit(
        "internal/ratelimit/limiter.go",
        "func New(burst int, refillEvery time.Duration) *Limiter {\n"
        "\treturn &Limiter{buckets: map[string]*bucket{}, burst: burst, refillEvery: refillEvery}\n}",
        "func New(limits config.Limits) *Limiter {\n"
        "\treturn &Limiter{buckets: map[string]*bucket{}, limits: limits}\n}\n\n"
        "func (l *Limiter) burstFor(key string) int {\n"
        '\tif rps, ok := l.limits.Services[strings.TrimPrefix(key, "svc:")]; ok {\n'
        "\t\treturn rps\n\t}\n\treturn l.limits.Burst\n}",
    )
    s.edit(
        "cmd/gatewayd/main.go",
        "\tl := ratelimit.New(limits.Burst, time.Second)",
        "\tl := ratelimit.New(limits)",
    )
    s.probe("file change", "cmd/gatewayd/main.go", "+1 -1")
    s.user(
        "We'll keep the buckets in memory on each replica instead of moving them to Redis: "
        "with three replicas the slack is at most 3x, which ops accepts."
    )
    s.probe("decision", "in memory", "Redis")
    s.bash("go build ./... && go vet ./...", "", 0)
    s.bash(
        "go test -bench=Allow -run='^$' ./internal/ratelimit/",
        "goos: linux\ngoarch: amd64\npkg: gatewayd/internal/ratelimit\n"
        "BenchmarkAllow-8   \t 6021455\t       198.2 ns/op\nPASS\n"
        "ok  \tgatewayd/internal/ratelimit\t1.421s",
        0,
    )
    s.say(
        "BenchmarkAllow is at 198 ns/op now, against 412 ns/op before the change, because the "
        "bucket lookup no longer allocates a key string per request."
    )
    s.probe("fact", "BenchmarkAllow", "198 ns/op")
    s.user(
        "Nice. Heads up, I only do reviews on Tuesday mornings, so keep each PR under 400 "
        "changed lines."
    )
    s.probe("preference", "Tuesday mornings")
    s.probe("preference", "400 changed lines")
    s.user("Staging runs 3 gateway replicas behind the internal LB, fyi, in case it matters.")
    s.probe("fact", "3 gateway replicas")
    s.bash(
        "go test ./...",
        "ok  \tgatewayd/internal/api\t0.020s\nok  \tgatewayd/internal/auth\t0.006s\nok  \tgatewayd/internal/config\t0.009s\nok  \tgatewayd/internal/ratelimit\t0.012s",
        0,
    )
    s.bash("git add -A && git commit -qm 'ratelimit: key buckets on workload identity'", "", 0)
    s.user("Later we should load-test this at 5k rps before it goes to prod. Not today.")
    s.probe("todo", "load-test")
    s.cut()

    s.user(
        "Thinking about the reload again: configmap updates don't send any signal to the pod, "
        "so SIGHUP won't fire. Let's watch the file with fsnotify instead."
    )
    s.probe("decision", "fsnotify", "signal", stale="reload on SIGHUP")
    s.bash(
        "go get github.com/fsnotify/fsnotify@v1.7.0",
        "go: added github.com/fsnotify/fsnotify v1.7.0\ngo: added golang.org/x/sys v0.4.0",
        0,
    )
    s.write(
        "internal/config/watch.go",
        'package config\n\nimport "github.com/fsnotify/fsnotify"\n\n'
        "// Watch calls onChange with the new limits whenever path is rewritten.\n"
        "func Watch(path string, onChange func(Limits)) (func() error, error) {\n"
        "\tw, err := fsnotify.NewWatcher()\n\tif err != nil {\n\t\treturn nil, err\n\t}\n"
        "\tgo func() {\n\t\tfor range w.Events {\n"
        "\t\t\tif l, err := Load(path); err == nil {\n\t\t\t\tonChange(l)\n\t\t\t}\n\t\t}\n\t}()\n"
        "\treturn w.Close, w.Add(path)\n}\n",
    )
    s.probe("file change", "internal/config/watch.go", "created")
    s.edit(
        "internal/ratelimit/limiter.go",
        "func (l *Limiter) burstFor(key string) int {",
        "// SetLimits swaps the limits in place; buckets keep their tokens.\n"
        "func (l *Limiter) SetLimits(limits config.Limits) {\n"
        "\tl.mu.Lock()\n\tl.limits = limits\n\tl.mu.Unlock()\n}\n\n"
        "func (l *Limiter) burstFor(key string) int {",
    )
    s.bash(
        "go test -race ./internal/config/...",
        "==================\nWARNING: DATA RACE\nRead at 0x00c0001a4018 by goroutine 9:\n"
        "  gatewayd/internal/config.TestWatch()\n==================\n"
        "--- FAIL: TestWatch (0.05s)\n    testing.go:1398: race detected during execution of test\nFAIL",
        1,
    )
    s.say(
        "The race is in the test itself: TestWatch reads `got` from the callback goroutine "
        "without the mutex. Guarding it with a channel instead."
    )
    s.edit(
        "internal/config/watch_test.go",
        "\tvar got Limits\n\tstop, err := Watch(path, func(l Limits) { got = l })",
        "\tgot := make(chan Limits, 1)\n\tstop, err := Watch(path, func(l Limits) { got <- l })",
    )
    s.bash("go test -race ./internal/config/...", "ok  \tgatewayd/internal/config\t1.108s", 0)
    s.probe("fact", "go test -race ./internal/config/...", "exit 0", stale="exit 1")
    s.edit(
        "internal/api/middleware.go",
        '\t\t\thttp.Error(w, "rate limited", http.StatusTooManyRequests)',
        "\t\t\trejected.WithLabelValues(serviceOf(r)).Inc()\n"
        '\t\t\thttp.Error(w, "rate limited", http.StatusTooManyRequests)',
    )
    s.write(
        "internal/api/metrics.go",
        "package api\n\nvar rejected = promauto.NewCounterVec(prometheus.CounterOpts{\n"
        '\tName: "ratelimit_rejected_total",\n\tHelp: "Requests refused by the rate limiter.",\n'
        '}, []string{"service"})\n',
    )
    s.bash("go test ./internal/api/...", "ok  \tgatewayd/internal/api\t0.031s", 0)
    s.say(
        "The rejected-requests metric is in as ratelimit_rejected_total with a service label, "
        "so that TODO is done."
    )
    s.probe("todo", "metric for rejected requests", "done", stale="open")
    s.user("Also: always run go vet and the race tests before you push anything.")
    s.probe("preference", "race tests")
    s.bash(
        "go vet ./... && go test -race ./...",
        "ok  \tgatewayd/internal/api\t0.210s\nok  \tgatewayd/internal/auth\t0.044s\nok  \tgatewayd/internal/config\t1.122s\nok  \tgatewayd/internal/ratelimit\t0.090s",
        0,
    )
    s.read("internal/api/middleware.go", _HANDLERS["internal/api/middleware.go"])
    s.say("middleware.go now counts the rejection before writing the 429.")
    s.bash(
        "git add -A && git commit -qm 'config: reload limits with fsnotify; count rejections'",
        "",
        0,
    )
    s.bash(
        "git log --oneline -3",
        "c2d81f0 config: reload limits with fsnotify; count rejections\nb7e45a9 ratelimit: key buckets on workload identity\na41c9e2 mesh: route internal traffic through the sidecar",
    )
    s.user("Can you double check the healthz route isn't rate limited?")
    s.read("internal/api/routes.go", _HANDLERS["internal/api/routes.go"])
    s.say("Right, /healthz is registered without `h.limit`, so probes never touch a bucket.")
    s.user("ok. push the branch please.")
    s.bash(
        "git push -u origin ratelimit-identity",
        "To github.com:acme/gatewayd.git\n * [new branch]      ratelimit-identity -> ratelimit-identity",
        0,
    )
    s.say("Pushed ratelimit-identity; two commits, both with vet and race tests green.")
    return s.session
