import { writeSyntheticRepo } from './synthetic-repo.ts';
console.log(JSON.stringify(writeSyntheticRepo(process.argv[2], Number(process.argv[3]))));
