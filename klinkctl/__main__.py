from klinkctl.entry import main

main()
