# Sourced by the cluster scripts: a standalone Spark cluster on 127.0.0.1 (one master, two
# workers of one core each) from the pip pyspark in $venv, started and always stopped by the
# caller's shell.
#
#   . spark/cluster.sh
#   neardup=$(spark_neardup "${1:-}")   # the binary given, else the debug build (made if missing)
#   spark_venv                  # target/spark-venv with pyspark and pyarrow, made once
#   cluster_start DIR           # sets $master (spark://127.0.0.1:PORT); logs under DIR
#   trap cluster_stop EXIT      # stops every JVM it started, whatever happened
#   cluster_kill_worker 2       # SIGKILL worker 2 and the executor it launched
#
# Each worker gets WORKER_MEMORY (default 3g); its executor takes what the job asks for.

venv=${venv:-target/spark-venv}
cluster_pids=()

spark_neardup() {
  local binary=${1:-target/debug/neardup}
  [ -x "$binary" ] || cargo build --quiet
  realpath "$binary"
}

spark_venv() {
  if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import pyspark, pyarrow, pandas' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check 'pyspark[sql]>=4.0,<5' 'pandas>=2.2,<3'
  fi
  java -version > /dev/null 2>&1 || { echo "spark: Java (17+) is needed by Spark" >&2; return 1; }
  export PYSPARK_PYTHON="$PWD/$venv/bin/python" SPARK_LOCAL_IP=127.0.0.1
  SPARK_HOME=$("$venv/bin/python" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')
  export SPARK_HOME
}

free_port() {
  "$venv/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_for LOG PATTERN WHAT: up to 60 s for a started JVM to log PATTERN.
wait_for() {
  local log=$1 pattern=$2 what=$3 i
  for i in $(seq 600); do
    grep -q "$pattern" "$log" 2> /dev/null && return 0
    sleep 0.1
  done
  echo "spark cluster: $what did not start in 60 s; its log ($log) ends:" >&2
  tail -5 "$log" >&2
  return 1
}

cluster_start() {
  local dir=$1 port ui n
  mkdir -p "$dir"
  cluster_dir=$dir
  port=$(free_port)
  ui=$(free_port)
  master=spark://127.0.0.1:$port
  export SPARK_LOG_DIR=$dir SPARK_WORKER_DIR=$dir/work
  "$SPARK_HOME/bin/spark-class" org.apache.spark.deploy.master.Master \
    --host 127.0.0.1 --port "$port" --webui-port "$ui" > "$dir/master.log" 2>&1 &
  cluster_pids+=($!)
  wait_for "$dir/master.log" "I have been elected leader" "the master" || return 1
  for n in 1 2; do
    eval "worker_port_$n=$(free_port)"
    eval "port=\$worker_port_$n"
    "$SPARK_HOME/bin/spark-class" org.apache.spark.deploy.worker.Worker \
      --host 127.0.0.1 --port "$port" --cores 1 --memory "${WORKER_MEMORY:-3g}" --webui-port "$(free_port)" \
      --work-dir "$dir/work-$n" "$master" > "$dir/worker-$n.log" 2>&1 &
    cluster_pids+=($!)
    eval "worker_pid_$n=$!"
  done
  for n in 1 2; do
    wait_for "$dir/worker-$n.log" "Successfully registered with master" "worker $n" || return 1
  done
}

# The executors a worker launched: JVMs whose command line names the worker's address.
executor_of() {
  local port
  eval "port=\${worker_port_$1:-none}"
  pgrep -f "CoarseGrainedExecutorBackend.*Worker@127.0.0.1:$port( |$)" || true
}

cluster_kill_worker() {
  local n=$1 pid executor
  eval "pid=\$worker_pid_$n"
  executor=$(executor_of "$n")
  kill -9 "$pid" $executor 2> /dev/null || true
  wait "$pid" 2> /dev/null || true  # reaped here, so that the shell does not report it
  echo "spark cluster: killed worker $n (pid $pid) and its executor (pid ${executor:-none})" >&2
}

cluster_stop() {
  local pid
  for pid in "${cluster_pids[@]}"; do
    kill "$pid" 2> /dev/null || true
  done
  # Executors outlive a worker killed with SIGKILL for a moment; none may outlive the script.
  kill $(executor_of 1) $(executor_of 2) 2> /dev/null || true
  for pid in "${cluster_pids[@]}"; do
    wait "$pid" 2> /dev/null || true
  done
  cluster_pids=()
}
