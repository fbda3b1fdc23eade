const t = performance.now();
for (const m of process.argv.slice(2)) await import(m);
console.log(process.argv.slice(2).join(' ').slice(0,60), 'wall', (performance.now()-t).toFixed(0), 'cpu', (process.cpuUsage().user/1000 + process.cpuUsage().system/1000).toFixed(0));
