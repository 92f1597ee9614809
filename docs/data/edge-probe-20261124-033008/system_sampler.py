import time, sys, os
out = open(sys.argv[1], "w")
out.write("t,dirty_kb,writeback_kb,cpu0_user,cpu0_sys,cpu0_iowait,cpu0_soft,cpu1_user,cpu1_sys,cpu1_iowait,cpu1_soft,cpu1_idle,tm_ticks,kafka_ticks,kworker1_ticks\n")
def tm_pid():
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                c = open(f"/proc/{p}/cmdline","rb").read()
            except OSError: continue
            if b"TaskManagerRunner" in c: return p
def kafka_pid():
    for p in os.listdir("/proc"):
        if p.isdigit():
            try: c = open(f"/proc/{p}/cmdline","rb").read()
            except OSError: continue
            if b"kafka.Kafka" in c: return p
def ticks(pid):
    try:
        f = open(f"/proc/{pid}/stat").read().rsplit(")",1)[1].split()
        return int(f[11]) + int(f[12])
    except Exception: return -1
def kworker_on_cpu1():
    total = 0
    for p in os.listdir("/proc"):
        if not p.isdigit(): continue
        try:
            s = open(f"/proc/{p}/stat").read()
        except OSError: continue
        name = s[s.index("(")+1:s.rindex(")")]
        f = s.rsplit(")",1)[1].split()
        if (name.startswith("kworker") or name.startswith("jbd2") or name.startswith("ksoftirq")) :
            total += int(f[11]) + int(f[12])
    return total
tm, kf = tm_pid(), kafka_pid()
while True:
    mem = {l.split(":")[0]: l.split()[1] for l in open("/proc/meminfo")}
    cpus = {l.split()[0]: l.split()[1:] for l in open("/proc/stat") if l.startswith("cpu")}
    c0, c1 = cpus["cpu0"], cpus["cpu1"]
    out.write(f"{time.time():.1f},{mem['Dirty']},{mem['Writeback']},{c0[0]},{c0[2]},{c0[4]},{c0[6]},{c1[0]},{c1[2]},{c1[4]},{c1[6]},{c1[3]},{ticks(tm)},{ticks(kf)},{kworker_on_cpu1()}\n")
    out.flush()
    time.sleep(1)
