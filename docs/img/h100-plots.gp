set terminal pngcairo size 1000,520 font "sans,10" noenhanced
set output '/work/main/docs/img/h100-throughput.png'
set title "uvas-exp default experiment on the NVIDIA H100: throughput per policy (log scale)"
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.8 border -1
set logscale y
set ylabel "MB/s (bytes touched / wall time)"
set key outside right
set grid ytics
plot for [c=2:7] 'tp.dat' using c:xtic(1) title columnhead
set output '/work/main/docs/img/h100-residency-hotset.png'
unset logscale y
set style data linespoints
set title "hotset on the H100: device-resident blocks over time, per policy"
set xlabel "seconds"
set ylabel "device-resident blocks (of 32)"
files = system("ls res-*.dat")
plot for [f in files] f using 1:2 with linespoints title substr(f,5,strlen(f)-4)
