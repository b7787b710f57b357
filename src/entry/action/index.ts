/** The action entry: refuses an old Node, then only calls run(). */
import './node-guard.js'
import { run } from './main.js'

void run()
