#!/usr/bin/env bash
# Durable job submissions/s: headroomd against Slurm 22.05's slurmrestd, side by side on this
# machine (issue 10's goal: with a new connection per request, headroomd at least 4x
# slurmrestd's rate measured in the same run, p99 under 100 ms; on kept-alive connections not
# below 2,925/s at 64 clients). Described in docs/benchmarks.md ("Submissions against
# slurmrestd").
#
#   scripts/bench-submit-vs-slurmrestd.sh        # as root; 3.5 min on a busy 2-core machine
#
# What it does, in one command:
#  1. Installs what is missing (idempotent; Debian 12): munge, slurmctld, slurmd, slurm-client,
#     slurmrestd, slurm-wlm-jwt-plugin (as /work/shared/REALPARTS.md §1.1), apache2-utils, jq;
#     builds build/bin/headroomd and build/bin/headroom if they are missing.
#  2. Starts, in a scratch dir, a private munged (own socket), slurmctld + one slurmd with 8 fake
#     GPUs (REALPARTS §1.2) on free loopback ports, slurmrestd on 127.0.0.1 with JWT auth
#     (REALPARTS §1.6 (b)); and, for each headroom run, a fresh headroomd (simulated backend,
#     generated building of $DEVICES devices, fresh data dir, admin token from its admin.token).
#  3. $RUNS interleaved rounds; each: headroomd with a new connection per request, slurmrestd
#     with a new connection per request, headroomd with keep-alive. $N one-GPU submissions at $C
#     concurrent clients (keep-alive: $N_KA, so the run lasts a few seconds). Between rounds
#     the Slurm queue is emptied (scancel -u root), and every headroom run gets a new daemon,
#     so neither queue grows across runs. Successes are counted twice: 2xx answers, and the
#     jobs each scheduler then holds (Slurm: job ids above the last one before the run;
#     headroomd: GET /v1/jobs).
#  4. Prints a table (submissions/s, p50, p99, failures, headroomd/slurmrestd ratio per round)
#     and writes it as JSON to $OUT/submit-vs-slurmrestd.json.
#  5. On exit, however it exits, stops every daemon it started by recorded PID (SIGTERM, then
#     SIGKILL after 10 s), cancels the Slurm jobs, kills what is left of them (processes whose
#     environment names this run's slurm.conf) and removes the scratch dir (KEEP=1 keeps it).
#
# Load generator: ApacheBench (`ab`, apache2-utils). It sends what slurmrestd needs (-H for
# the X-SLURM-USER-NAME/X-SLURM-USER-TOKEN headers, -p/-T for the JSON body), opens a new
# connection per request unless -k, and reports percentiles of the whole request time
# (connect included) with -e, so no load generator of our own is needed. It is one
# single-threaded process driving all $C connections from an event loop; on 2 cores it takes
# CPU from the server it measures, the same for both servers. It speaks HTTP/1.0 (-k adds
# "Connection: Keep-Alive", which headroomd honours: the JSON's keep_alive_requests shows it).
# -l: answers differ in length (job ids), which is not a failure; -r: a socket error counts as
# a failed request instead of ending the run. Submissions/s is ab's "Requests per second".
#
# Environment: N (2000), N_KA (20000), C (64), RUNS (3), DEVICES (1024), BUILD (build),
# HEADROOMD / HEADROOM (binaries; default $BUILD/bin/...), OUT (out/bench), KEEP (0).
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
N=${N:-2000}
N_KA=${N_KA:-20000}
C=${C:-64}
RUNS=${RUNS:-3}
DEVICES=${DEVICES:-1024}
BUILD=${BUILD:-build}
HEADROOMD=${HEADROOMD:-$BUILD/bin/headroomd}
HEADROOM=${HEADROOM:-$BUILD/bin/headroom}
OUT=${OUT:-out/bench}
KEEP=${KEEP:-0}

log() { echo "[bench $(date +%T)] $*" >&2; }
die() { log "ERROR: $*"; exit 1; }
[[ $(id -u) == 0 ]] || die "run as root (it installs packages and starts Slurm's daemons)"

########################################################################## 1. install, build
need_pkgs=()
for p in munge slurmctld slurmd slurm-client slurmrestd slurm-wlm-jwt-plugin apache2-utils jq curl; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need_pkgs+=("$p")
done
if ((${#need_pkgs[@]})); then
  log "installing ${need_pkgs[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need_pkgs[@]}" >/dev/null
fi
# Debian's policy-rc.d on this machine keeps the packages from starting daemons; where it does not
# (a machine with systemd), the system's munged/slurmctld may run: this script uses its own
# ports, socket and state, and never touches them.

targets=()
[[ -x $HEADROOMD ]] || targets+=(headroomd)
[[ -x $HEADROOM ]] || targets+=(headroom)
if ((${#targets[@]})); then
  log "building ${targets[*]} in $BUILD"
  [[ -f $BUILD/CMakeCache.txt ]] || cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$BUILD" -j "$(nproc)" --target "${targets[@]}"
fi

########################################################################## cleanup (trap)
W=$(mktemp -d /tmp/headroom-bench-submit.XXXXXX)
chmod 755 "$W"           # munged (user munge) must reach its socket dir
S=$W/slurm
declare -A PIDS=()       # name -> pid of every daemon this script started

# PIDs of processes whose environment names this run's slurm.conf: slurmstepd and job processes,
# which outlive slurmd. Only ours carry this path.
slurm_leftovers() {
  local f pid
  for f in $(env -u SLURM_CONF grep -lzxF "SLURM_CONF=$S/etc/slurm.conf" /proc/[0-9]*/environ 2>/dev/null); do
    pid=${f#/proc/}; pid=${pid%/environ}
    [[ $pid == "$$" || $pid == "$BASHPID" ]] || echo "$pid"
  done
  return 0
}

alive() {   # alive PID: running (a zombie child, exited but not yet reaped, is not)
  local st
  st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) || return 1
  [[ ${st:0:1} != Z ]]
}

stop_pids() {   # stop_pids PID...: SIGTERM, wait up to 10 s, then SIGKILL
  local p any t
  for p in "$@"; do kill -TERM "$p" 2>/dev/null || true; done
  for ((t = 0; t < 100; t++)); do
    any=0
    for p in "$@"; do alive "$p" && any=1; done
    ((any)) || return 0
    sleep 0.1
  done
  for p in "$@"; do
    if alive "$p"; then log "pid $p ignored SIGTERM for 10 s: SIGKILL"; kill -KILL "$p" 2>/dev/null || true; fi
  done
}

stop_daemon() {   # stop_daemon NAME
  local pid=${PIDS[$1]:-} t0=$SECONDS
  [[ -n $pid ]] || return 0
  stop_pids "$pid"
  wait "$pid" 2>/dev/null || true
  unset "PIDS[$1]"
  ((SECONDS - t0 < 2)) || log "$1 took $((SECONDS - t0)) s to stop"
}

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  set +e
  log "stopping the daemons: ${!PIDS[*]}"
  for d in slurmrestd headroomd headroomd_ka; do stop_daemon "$d"; done
  if [[ -n ${PIDS[slurmctld]:-} ]]; then
    # Jobs first: slurmstepd and job processes outlive a stopped slurmd (REALPARTS.md §1.2).
    export SLURM_CONF=$S/etc/slurm.conf
    timeout 10 scancel -u root >/dev/null 2>&1
    wait_for 15 sh -c '[ -z "$(squeue -h -o %i)" ]' || log "jobs left after scancel: $(squeue -h | head -3)"
  fi
  stop_daemon slurmd
  local left
  left=$(slurm_leftovers)
  [[ -n $left ]] && stop_pids $left
  for d in slurmctld munged "${!PIDS[@]}"; do stop_daemon "$d"; done
  log "stopped"
  if [[ $KEEP == 1 || $rc == 1 ]]; then   # kept after an error (its logs), not after Ctrl-C
    log "scratch dir kept: $W (logs)"
  else
    rm -rf "$W"
  fi
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_for() {    # wait_for SECONDS CMD...: poll every 0.1 s
  local deadline=$((SECONDS + $1)); shift
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || return 1
    sleep 0.1
  done
}

########################################################################## 2. Slurm + slurmrestd
log "scratch dir $W; $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
mkdir -p "$S"/{etc,state,log,run,out,dev,spool} "$W/munge"

# A private munged: its own socket, pid and seed files; the key is the system's (made by the
# munge package's postinst).
chown munge:munge "$W/munge"; chmod 755 "$W/munge"   # munged: "execute permissions for all required"
[[ -s /etc/munge/munge.key ]] || mungekey -c -f -k /etc/munge/munge.key
chown munge:munge /etc/munge/munge.key; chmod 400 /etc/munge/munge.key
MUNGE_SOCK=$W/munge/munge.sock
runuser -u munge -- /usr/sbin/munged --socket="$MUNGE_SOCK" --pid-file="$W/munge/munged.pid" \
  --log-file="$W/munge/munged.log" --seed-file="$W/munge/munged.seed"
wait_for 5 test -s "$W/munge/munged.pid" || die "munged did not start ($W/munge/munged.log)"
PIDS[munged]=$(cat "$W/munge/munged.pid")
munge -S "$MUNGE_SOCK" -n | unmunge -S "$MUNGE_SOCK" | grep -q Success || die "munge does not work"

for i in 0 1 2 3 4 5 6 7; do mknod "$S/dev/nvidia$i" c 195 $i 2>/dev/null || touch "$S/dev/nvidia$i"; done
dd if=/dev/urandom of="$S/etc/jwt_hs256.key" bs=32 count=1 status=none; chmod 600 "$S/etc/jwt_hs256.key"
CTLD_PORT=$(free_port); D_PORT=$(free_port); REST_PORT=$(free_port)
cat > "$S/etc/slurm.conf" <<EOF
ClusterName=bench
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$CTLD_PORT
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MUNGE_SOCK
AuthAltTypes=auth/jwt
AuthAltParameters=jwt_key=$S/etc/jwt_hs256.key
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool/%n
SlurmctldPidFile=$S/run/slurmctld.pid
SlurmdPidFile=$S/run/slurmd-%n.pid
SlurmctldLogFile=$S/log/slurmctld.log
SlurmdLogFile=$S/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
ReturnToService=2
SlurmdTimeout=30
SlurmdParameters=config_overrides
MaxJobCount=200000
NodeName=b1 NodeHostname=localhost NodeAddr=127.0.0.1 Port=$D_PORT CPUs=2 Sockets=1 CoresPerSocket=2 ThreadsPerCore=1 RealMemory=1000 Gres=gpu:8 State=UNKNOWN
PartitionName=bench Nodes=b1 Default=YES MaxTime=INFINITE State=UP
EOF
echo "NodeName=b1 Name=gpu File=$S/dev/nvidia[0-7]" > "$S/etc/gres.conf"
export SLURM_CONF=$S/etc/slurm.conf

slurmctld
wait_for 10 test -s "$S/run/slurmctld.pid" || die "slurmctld did not start ($S/log/slurmctld.log)"
PIDS[slurmctld]=$(cat "$S/run/slurmctld.pid")
wait_for 10 sh -c 'scontrol ping | grep -q UP' || die "slurmctld does not answer ($S/log/slurmctld.log)"
mkdir -p "$S/spool/b1"
slurmd -N b1
wait_for 10 test -s "$S/run/slurmd-b1.pid" || die "slurmd did not start ($S/log/slurmd-b1.log)"
PIDS[slurmd]=$(cat "$S/run/slurmd-b1.pid")
wait_for 20 sh -c '[ "$(sinfo -h -o %T)" = idle ]' || die "node b1 not idle: $(sinfo -h -o '%T %E') ($S/log/)"

SLURM_JWT=daemon SLURMRESTD_SECURITY=disable_user_check \
  slurmrestd -a rest_auth/jwt -s openapi/v0.0.38 "127.0.0.1:$REST_PORT" > "$S/log/slurmrestd.log" 2>&1 &
PIDS[slurmrestd]=$!
SLURM_TOKEN=$(scontrol token username=root lifespan=7200 | sed 's/^SLURM_JWT=//')
REST=http://127.0.0.1:$REST_PORT
rest_curl() { curl -sf -H "X-SLURM-USER-NAME: root" -H "X-SLURM-USER-TOKEN: $SLURM_TOKEN" "$@"; }
wait_for 10 rest_curl "$REST/slurm/v0.0.38/ping" || die "slurmrestd does not answer ($S/log/slurmrestd.log)"

# v0.0.38 field names as REALPARTS §1.6 tested them; one GPU per job ("gres": "gpu:1"). The
# jobs sleep 1 s; with 2 CPUs on the node at most 2 run at once, the rest wait in the queue.
printf '%s' "{\"job\": {\"name\": \"bench\", \"partition\": \"bench\", \"current_working_directory\": \"$S/out\", \
\"environment\": {\"PATH\": \"/usr/bin:/bin\"}, \"standard_output\": \"/dev/null\", \"gres\": \"gpu:1\"}, \
\"script\": \"#!/bin/bash\\nsleep 1\"}" > "$W/slurm-job.json"
printf '%s' '{"apiVersion":"headroom/v1","kind":"Job","spec":{"tasks":1,"timeLimit":3600,"runtime":60,"devices":{"requests":[{"name":"gpus","count":1}]}}}' > "$W/headroom-job.json"

answer=$(rest_curl -H 'Content-Type: application/json' --data-binary @"$W/slurm-job.json" "$REST/slurm/v0.0.38/job/submit") \
  || die "slurmrestd refused the submission ($S/log/slurmrestd.log)"
jq -e '(.job_id | type) == "number" and (.errors | length) == 0' <<<"$answer" >/dev/null \
  || die "slurmrestd submission failed: $answer"
tres=$(scontrol show job "$(jq .job_id <<<"$answer")" | grep -o 'TresPerNode=[^ ]*' || true)
[[ $tres == TresPerNode=gres:gpu:1 ]] || die "the Slurm job does not ask for one GPU: '$tres'"
log "slurmrestd submission works ($tres): $(jq -c . <<<"$answer")"

max_slurm_id() { squeue -h -t all -o %i | sort -n | tail -1; }
empty_slurm_queue() {
  scancel -u root
  wait_for 120 sh -c '[ -z "$(squeue -h -t pending,running,completing,configuring -o %i)" ]' \
    || die "Slurm queue did not empty after scancel: $(squeue -h | wc -l) jobs"
}
empty_slurm_queue

########################################################################## headroomd
# Copies of the binaries, so that a rebuild of $BUILD during the runs changes nothing here.
mkdir -p "$W/bin"; cp -p "$HEADROOMD" "$W/bin/headroomd"; cp -p "$HEADROOM" "$W/bin/headroom"
HEADROOMD_SRC=$HEADROOMD; HEADROOMD=$W/bin/headroomd; HEADROOM=$W/bin/headroom
"$HEADROOM" gen-cluster --devices "$DEVICES" > "$W/cluster.yaml"
start_headroomd() {   # start_headroomd NAME: fresh data dir; sets HR_URL, HR_TOKEN
  local d=$W/$1
  rm -rf "$d"; mkdir -p "$d"
  # One tenant queues up to N_KA jobs here: admission's default of 10,000 pending per tenant
  # would refuse the rest (429), and the run would measure refusals.
  "$HEADROOMD" --listen 127.0.0.1:0 --port-file "$d/port" --data-dir "$d/data" \
    --backend simulated --cluster "$W/cluster.yaml" --time-scale 1 \
    --max-pending-per-tenant "$N_KA" --max-pending "$N_KA" > "$d/headroomd.log" 2>&1 &
  PIDS[$1]=$!
  wait_for 30 test -s "$d/port" || die "headroomd did not start ($d/headroomd.log)"
  HR_URL=http://127.0.0.1:$(cat "$d/port")
  wait_for 10 curl -sf "$HR_URL/healthz" || die "headroomd /healthz does not answer ($d/headroomd.log)"
  HR_TOKEN=$(cat "$d/data/admin.token")
}
headroom_jobs() { curl -sf -H "Authorization: Bearer $HR_TOKEN" "$HR_URL/v1/jobs?limit=100000" | jq '.jobs | length'; }

start_headroomd headroomd
curl -sf -H "Authorization: Bearer $HR_TOKEN" -H 'Content-Type: application/json' \
  --data-binary @"$W/headroom-job.json" "$HR_URL/v1/jobs" >/dev/null || die "headroomd refused the submission"
stop_daemon headroomd

########################################################################## 3. runs
RESULTS=$W/results.jsonl
: > "$RESULTS"

# run_ab NAME ROUND SERVER MODE N VERIFIED URL AB-ARGS...: runs ab, appends one JSON line.
run_ab() {
  local name=$1 round=$2 server=$3 mode=$4 n=$5 verify=$6 url=$7; shift 7
  local f=$W/ab-$name-$round
  log "round $round: $server, $mode, $n submissions, $C clients"
  ab -q -l -r -s 60 -n "$n" -c "$C" -e "$f.csv" "$@" "$url" > "$f.out" 2>&1 || die "ab failed: $(tail -3 "$f.out")"
  local verified
  verified=$($verify)
  python3 - "$f.out" "$f.csv" "$round" "$server" "$mode" "$n" "$verified" "$(cut -d' ' -f1 /proc/loadavg)" >> "$RESULTS" <<'PY'
import json, re, sys
out, csv, rnd, server, mode, n, verified, load = sys.argv[1:]
t = open(out).read()
def num(pat, default=None):
    m = re.search(pat, t)
    return float(m.group(1)) if m else default
pct = {}
for line in open(csv).read().splitlines()[1:]:
    p, ms = line.split(",")
    pct[int(float(p))] = float(ms)
complete = int(num(r"Complete requests:\s+(\d+)", 0))
failed = int(num(r"Failed requests:\s+(\d+)", 0))
non2xx = int(num(r"Non-2xx responses:\s+(\d+)", 0))
print(json.dumps({
    "round": int(rnd), "server": server, "connection": mode, "requests": int(n),
    "submissions_per_s": num(r"Requests per second:\s+([\d.]+)"),
    "seconds": num(r"Time taken for tests:\s+([\d.]+)"),
    "p50_ms": pct.get(50), "p99_ms": pct.get(99), "max_ms": pct.get(100),
    "failed": failed + non2xx, "ab_failed": failed, "non_2xx": non2xx,
    "accepted_2xx": complete - failed - non2xx, "jobs_verified": int(verified),
    "keep_alive_requests": int(num(r"Keep-Alive requests:\s+(\d+)", 0)),
    "load_average": float(load)}))
PY
}

for ((r = 1; r <= RUNS; r++)); do
  start_headroomd headroomd
  run_ab headroom-new "$r" headroomd new-connection "$N" headroom_jobs "$HR_URL/v1/jobs" \
    -T application/json -p "$W/headroom-job.json" -H "Authorization: Bearer $HR_TOKEN"
  stop_daemon headroomd

  before=$(max_slurm_id); before=${before:-0}
  slurm_new_jobs() { squeue -h -t all -o %i | awk -v b="$before" '$1 > b' | wc -l; }
  run_ab slurm-new "$r" slurmrestd new-connection "$N" slurm_new_jobs "$REST/slurm/v0.0.38/job/submit" \
    -T application/json -p "$W/slurm-job.json" -H "X-SLURM-USER-NAME: root" -H "X-SLURM-USER-TOKEN: $SLURM_TOKEN"
  empty_slurm_queue

  start_headroomd headroomd_ka
  run_ab headroom-ka "$r" headroomd keep-alive "$N_KA" headroom_jobs "$HR_URL/v1/jobs" -k \
    -T application/json -p "$W/headroom-job.json" -H "Authorization: Bearer $HR_TOKEN"
  stop_daemon headroomd_ka
done

########################################################################## 4. table, JSON
mkdir -p "$OUT"
JSON=$OUT/submit-vs-slurmrestd.json
python3 - "$RESULTS" "$JSON" "$N" "$N_KA" "$C" "$DEVICES" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)" \
  "$(slurmctld -V)" "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)" \
  "$HEADROOMD_SRC ($(date -u -r "$HEADROOMD" +%FT%TZ), sha256 $(sha256sum "$HEADROOMD" | cut -c1-12))" <<'PY'
import json, sys, time
res, path, n, n_ka, c, devices, cpus, load, slurm, commit, hd = sys.argv[1:]
runs = [json.loads(l) for l in open(res)]
rounds = sorted({r["round"] for r in runs})
def get(rnd, server, mode):
    return next(r for r in runs if r["round"] == rnd and r["server"] == server and r["connection"] == mode)
ratios = []
for rnd in rounds:
    h, s = get(rnd, "headroomd", "new-connection"), get(rnd, "slurmrestd", "new-connection")
    ratios.append({"round": rnd, "headroomd_over_slurmrestd": round(h["submissions_per_s"] / s["submissions_per_s"], 2)})
fmt = "{:>5}  {:<10}  {:<14}  {:>6}  {:>13}  {:>8}  {:>8}  {:>8}  {:>8}  {:>5}"
print()
print(fmt.format("round", "server", "connection", "n", "submissions/s", "p50 ms", "p99 ms", "failures", "verified", "load"))
for rnd in rounds:
    for server, mode in (("headroomd", "new-connection"), ("slurmrestd", "new-connection"), ("headroomd", "keep-alive")):
        r = get(rnd, server, mode)
        print(fmt.format(rnd, server, mode, r["requests"], f'{r["submissions_per_s"]:.0f}', f'{r["p50_ms"]:.1f}',
                         f'{r["p99_ms"]:.1f}', r["failed"], r["jobs_verified"], f'{r["load_average"]:.1f}'))
    ratio = next(x for x in ratios if x["round"] == rnd)["headroomd_over_slurmrestd"]
    print(f"{rnd:>5}  new connection per request: headroomd/slurmrestd = {ratio:.2f}x")
ka = [get(rnd, "headroomd", "keep-alive") for rnd in rounds]
newc = [get(rnd, "headroomd", "new-connection") for rnd in rounds]
goals = {
    "new_connection_ratio_at_least_4": all(x["headroomd_over_slurmrestd"] >= 4 for x in ratios),
    "new_connection_p99_under_100ms": all(r["p99_ms"] < 100 for r in newc),
    "keep_alive_at_least_2925_per_s": all(r["submissions_per_s"] >= 2925 for r in ka),
    "no_failures_all_verified": all(r["failed"] == 0 and r["jobs_verified"] == r["requests"] for r in runs),
}
for r in ka:
    if r["keep_alive_requests"] < r["requests"]:
        print(f'note: round {r["round"]} keep-alive: only {r["keep_alive_requests"]} of {r["requests"]} requests kept their connection')
print()
for k, v in goals.items():
    print(f"goal {k}: {'met' if v else 'NOT met'}")
doc = {"benchmark": "submit-vs-slurmrestd", "time_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
       "requests_per_run": int(n), "requests_per_keep_alive_run": int(n_ka), "clients": int(c),
       "devices": int(devices), "cpus": int(cpus), "load_average_at_end": load, "slurm": slurm,
       "headroom_commit": commit, "headroomd": hd, "load_generator": "ab (apache2-utils)",
       "runs": runs, "ratios": ratios, "goals": goals}
json.dump(doc, open(path, "w"), indent=2)
print(f"\nwritten: {path}")
PY
# A failed or unverified submission makes the exit status 1 (after the table and the JSON).
jq -e '.goals.no_failures_all_verified' "$JSON" >/dev/null || die "some submissions failed or were not found afterwards"
