# shellcheck shell=bash
# Part 12 of make bench (sourced by bench.sh): the fleet agent on a busy
# server. PostgreSQL from Debian (a cluster of its own in a private temp
# dir, listening on 127.0.0.1 only) under pgbench at a bounded rate, and
# process churn beside it (a shell loop starting short-lived processes),
# run without the agent, with it (fleet mode: --interval, --output-dir) for
# P12_SECS, and without it again. The agent's CPU and RSS are read every 10 s:
# its CPU from the end of its first minute on is held to issue 36's goal
# (0.15% of a core), its RSS over time shown; the server's throughput and
# latency with the agent against the runs around it.

P12_RATE=200		# pgbench transactions a second (-R): a bounded load
P12_CLIENTS=4
P12_CHURN_SLEEP=0.05	# the churn loop: /bin/true, then sleep (two processes)
P12_READ=${P12_READ:-10}	# seconds between two readings of the agent (the smoke: 1)
# Another build of bpfprof (say, main's before a change) run side by side
# with the agent, same flags, same load: its CPU is the row's comparison,
# the two read at the same moments (the machine's noise is both's)
P12_VS=${P12_VS:-}

PG=""			# the cluster's temp dir
PG_PORT=""

p12_pgbin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }

# A cluster of our own: initdb'd by the postgres user in a temp dir,
# fsync off (the bench measures the agent, not the disk), 127.0.0.1 only,
# its socket in its own dir. Sets PG and PG_PORT; returns non-zero without
# PostgreSQL.
p12_pg_start() {
	local bin port
	bin=$(p12_pgbin)
	[ -n "$bin" ] && [ -x "$bin/initdb" ] && [ -x "$bin/pgbench" ] && id postgres >/dev/null 2>&1 || return 1
	PG=$(mktemp -d /tmp/bpfprof-bench-pg.XXXXXX)
	chown postgres: "$PG"
	runuser -u postgres -- "$bin/initdb" -D "$PG/data" -A trust -U bench --no-sync >"$W/p12.initdb" 2>&1 ||
		return 1
	for port in $(seq 54320 54399); do
		runuser -u postgres -- "$bin/pg_ctl" -D "$PG/data" -l "$PG/log" -w -t 30 \
			-o "-p $port -c listen_addresses=127.0.0.1 -c unix_socket_directories=$PG -c fsync=off -c shared_buffers=32MB" \
			start >/dev/null 2>&1 && { PG_PORT=$port; break; }
	done
	[ -n "$PG_PORT" ] || return 1
	"$bin/pgbench" -i -q -s 2 -h 127.0.0.1 -p "$PG_PORT" -U bench postgres >"$W/p12.init" 2>&1
}

p12_pg_stop() {
	[ -n "$PG" ] || return 0
	runuser -u postgres -- "$(p12_pgbin)/pg_ctl" -D "$PG/data" -m fast -w stop >/dev/null 2>&1 || true
	case $PG in /tmp/bpfprof-bench-pg.*) rm -rf "$PG" ;; esac
	PG=""
}

# p12_load NAME SECS: pgbench at the bounded rate for SECS beside the
# churn loop; its report in $W/p12.NAME.pgbench, the churn's count in
# $W/p12.NAME.churn
p12_load() {
	local name=$1 secs=$2 churn
	bash -c 'n=0; trap "echo \$n >$1; exit 0" TERM
		while :; do /bin/true; sleep "$2"; n=$((n + 2)); done' sh "$W/p12.$name.churn" "$P12_CHURN_SLEEP" &
	churn=$!
	STARTED+=("$churn")
	"$(p12_pgbin)/pgbench" -n -c "$P12_CLIENTS" -j 2 -R "$P12_RATE" -T "$secs" \
		-h 127.0.0.1 -p "$PG_PORT" -U bench postgres >"$W/p12.$name.pgbench" 2>&1 || true
	kill -TERM "$churn"; wait "$churn" 2>/dev/null || true
}

p12_tps() { sed -nE 's/^tps = ([0-9.]+).*/\1/p' "$W/p12.$1.pgbench" | head -1; }
p12_latency() { sed -nE 's/^latency average = ([0-9.]+) ms.*/\1/p' "$W/p12.$1.pgbench" | head -1; }
p12_churned() { cat "$W/p12.$1.churn" 2>/dev/null || echo 0; }

# p12_watch PID SECS [FILE]: the agent's "seconds CPU-ticks RSS-KiB" every
# P12_READ s while the load runs, into FILE ($W/p12.watch)
p12_watch() {
	local pid=$1 secs=$2 file=${3:-$W/p12.watch} t0=$SECONDS
	: >"$file"
	while [ $((SECONDS - t0)) -le "$secs" ] && kill -0 "$pid" 2>/dev/null; do
		echo "$((SECONDS - t0)) $(awk '{ print $14 + $15 }' "/proc/$pid/stat") $(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status")" >>"$file"
		sleep "$P12_READ"
	done
}

# CPU % of one core between readings at FROM and TO s (the readings
# nearest) of FILE ($W/p12.watch)
p12_cpu_between() {
	awk -v a="$1" -v b="$2" -v hz="$(getconf CLK_TCK)" '
		$1 >= a && !ta { ta = $1; ca = $2 } $1 <= b { tb = $1; cb = $2 }
		END { if (tb > ta) printf "%.4f", 100 * (cb - ca) / hz / (tb - ta); else print "NA" }' "${3:-$W/p12.watch}"
}

part12() {
	local secs=$P12_SECS base=$P12_BASE bp bt vp="" vt first mins m rss_first rss_last rss_max per_min=()
	local load0 load1 vs_cpu=""
	header "12. a busy server: PostgreSQL under pgbench ($P12_CLIENTS clients, $P12_RATE tx/s, 127.0.0.1) and process churn; fleet mode --interval $P6_INTERVAL -F $P6_HZ for $secs s, against ${base} s without it before and after"
	if ! p12_pg_start; then
		p12_pg_stop
		row_na 12 "agent CPU on a busy server" "PostgreSQL cannot run here (make bench-deps: postgresql)"
		return 0
	fi
	log "part 12: ${base} s without the agent"
	p12_load before "$base"
	rm -rf "$W/p12"; mkdir -p "$W/p12"
	start_bpfprof p12 --interval "$P6_INTERVAL" --output-dir "$W/p12" -F "$P6_HZ"
	bp=$LAST_PID bt=$LAST_TPID
	if [ -n "$P12_VS" ]; then
		rm -rf "$W/p12vs"; mkdir -p "$W/p12vs"
		start_timed p12vs "$P12_VS" --interval "$P6_INTERVAL" --output-dir "$W/p12vs" -F "$P6_HZ"
		wait_ready bpfprof "$LAST_PID"
		vp=$LAST_PID vt=$LAST_TPID
		p12_watch "$vp" "$secs" "$W/p12.watch.vs" & local vwatch=$!
	fi
	load0=$(cut -d' ' -f1 /proc/loadavg)
	log "part 12: $secs s with the agent (pid $bp${vp:+; $P12_VS beside it, pid $vp})"
	p12_watch "$bp" "$secs" & local watch=$!
	p12_load with "$secs"
	wait "$watch" 2>/dev/null || true
	load1=$(cut -d' ' -f1 /proc/loadavg)
	stop_timed "$bp" "$bt" TERM
	if [ -n "$vp" ]; then
		wait "$vwatch" 2>/dev/null || true
		stop_timed "$vp" "$vt" TERM
	fi
	log "part 12: ${base} s without the agent again"
	p12_load after "$base"
	p12_pg_stop
	# the first minute (a smoke run's: its first fifth) is start-up's
	first=$(( secs >= 120 ? 60 : secs / 5 ))
	mins=$(( (secs - first) / 60 ))
	for ((m = 0; m < mins; m++)); do
		per_min+=("$(p12_cpu_between $((first + 60 * m)) $((first + 60 * (m + 1))))")
	done
	rss_first=$(awk -v f="$first" '$1 >= f { printf "%.1f", $3 / 1024; exit }' "$W/p12.watch")
	rss_last=$(awk 'END { printf "%.1f", $3 / 1024 }' "$W/p12.watch")
	rss_max=$(awk -v f="$first" '$1 >= f && $3 > m { m = $3 } END { printf "%.1f", m / 1024 }' "$W/p12.watch")
	goal 12 "agent CPU from the end of its first minute on" "% of one core" \
		"$(p12_cpu_between "$first" "$secs")" "" "" 0.15
	[ -n "$vp" ] && vs_cpu=$(p12_cpu_between "$first" "$secs" "$W/p12.watch.vs") &&
		row 12 "agent CPU from the end of its first minute: this build vs P12_VS beside it" \
			"% of one core" "$(p12_cpu_between "$first" "$secs")" "$(basename "$P12_VS")" "$vs_cpu" \
			"($P12_VS)"
	row 12 "machine load average (1 min) at the start and end of the agent's run" load \
		"$load0 $load1" "" ""
	row 12 "agent CPU in its first minute (start-up included)" "% of one core" "$(p12_cpu_between 0 "$first")" "" ""
	[ "${#per_min[@]}" -gt 0 ] &&
		row 12 "agent CPU per minute after the first" "% of one core" "${per_min[*]}" "" "" \
			"(${per_min[*]})"
	row 12 "agent RSS after its first minute: first, last, max reading" MiB "$rss_last" "first" "$rss_first" \
		"(max $rss_max; $(wc -l <"$W/p12.watch") readings every $P12_READ s)"
	goal 12 "agent peak RSS (time -v)" MiB "$(time_rss "$W/p12.time")" "" "" 32
	row 12 "pgbench throughput: with the agent vs without (before, after)" tx/s \
		"$(p12_tps with)" without "$(p12_tps before) $(p12_tps after)"
	row 12 "pgbench latency average: with the agent vs without" ms \
		"$(p12_latency with)" without "$(p12_latency before) $(p12_latency after)"
	row 12 "short-lived processes started by the churn loop" processes "$(p12_churned with)" without \
		"$(p12_churned before) $(p12_churned after)"
}
