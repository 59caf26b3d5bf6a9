# bash completion for bpfprof: the subcommands first and each one's long
# options, from bpfprof's own tables (bpfprof --complete-words commands |
# options [COMMAND]: a new command or option needs no change here), event
# names (from --list, as this machine can open them), pids for -p, files for
# -o and the profiles the views read, FIFOs after --control fifo:.
_bpfprof()
{
	local cur prev words cword cmd=
	_init_completion || return
	if [[ $cword -gt 1 ]] && "$1" --complete-words commands 2>/dev/null | grep -qxF -- "${words[1]}"; then
		cmd=${words[1]}
	fi
	case $cmd:$prev in
	report:--format | flamegraph:--format | diff:--format)
		COMPREPLY=($(compgen -W "html svg" -- "$cur"))
		return ;;
	report:--sort)	# a comma-separated list
		local pre=${cur%"${cur##*,}"}
		COMPREPLY=($(compgen -P "$pre" -W "comm dso symbol" -- "${cur##*,}"))
		return ;;
	esac
	case $prev in
	-e | --event)
		local evs pre=
		[[ $cur == *,* ]] && pre=${cur%,*},
		evs=$("$1" --list 2>/dev/null | awk '/^[ \t]+[a-z]/ { print $1 }')
		COMPREPLY=($(compgen -P "$pre" -W "$evs" -- "${cur##*,}"))
		return ;;
	-p | --pid)
		_pids
		return ;;
	-t | --tid)
		return ;;
	-o | --output | --btf | --push-auth-file | --stats)
		_filedir
		return ;;
	--output-dir | --spool-dir | --cgroup | --debug-dir)
		_filedir -d
		return ;;
	--format)
		COMPREPLY=($(compgen -W "folded pprof both html svg otlp" -- "$cur"))
		return ;;
	--group-by)
		COMPREPLY=($(compgen -W "container pod unit cgroup pid none" -- "$cur"))
		return ;;
	--labels)	# a comma-separated list
		local pre=${cur%"${cur##*,}"}
		COMPREPLY=($(compgen -P "$pre" -W "pid tid comm cgroup container pod unit all none" -- "${cur##*,}"))
		return ;;
	--control)	# fifo:CTL[,ACK]
		local pre=fifo: rest=${cur#fifo:}
		if [[ $rest == *,* ]]; then
			pre=fifo:${rest%%,*},
			rest=${rest#*,}
		fi
		COMPREPLY=($(compgen -P "$pre" -f -- "$rest"))
		return ;;
	--call-graph)
		COMPREPLY=($(compgen -W "auto fp dwarf" -- "$cur"))
		return ;;
	--otlp)		# a URL, or env: the OTel exporters' variables
		COMPREPLY=($(compgen -W "env" -- "$cur"))
		return ;;
	-F | --freq | -d | --duration | -c | --count | --interval | --kill-after | --max-stacks | \
	--max-files | --max-bytes | --min-block | --unwind-rows | --spool-max | --push | --app | --comm | \
	--debuginfod-timeout | --dwarf-mem | --jit-map-mem | --max-cgroups | --percent-limit | --title | \
	--limit | --sort)
		return ;;
	esac
	local i
	for ((i = 1; i < cword; i++)); do
		if [[ ${words[i]} == -- ]]; then
			_command_offset $((i + 1))
			return
		fi
	done
	if [[ $cword -eq 1 && $cur != -* ]]; then
		COMPREPLY=($(compgen -W '$("$1" --complete-words commands 2>/dev/null)' -- "$cur"))
	elif [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W '$("$1" --complete-words options $cmd 2>/dev/null)' -- "$cur"))
	elif [[ $cmd == @(report|flamegraph|diff|symbolize) ]]; then
		_filedir	# the profiles they read
	fi
} &&
	complete -F _bpfprof bpfprof
