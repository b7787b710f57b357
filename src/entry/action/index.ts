/** The action entry: refuses an old Node, then only calls run(). */
import './node-guard.js'
// Before @actions/github (in @actions/artifact) reads GITHUB_EVENT_PATH with a blocking read as it loads.
import '../../util/event-path-guard.js'
import { run } from './main.js'

void run()
