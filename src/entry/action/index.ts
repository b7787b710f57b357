/** The action entry: only calls run(). */
import { run } from './main.js'

void run()
